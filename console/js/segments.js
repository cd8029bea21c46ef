// SMS encoding and segment counting, the same rules as the server's src/messaging/segments.ts
// (3GPP TS 23.038): GSM-7 when every character is in the default alphabet or its extension table
// (extension characters cost two septets), else UCS-2 in UTF-16 units; 160/153 septets or 70/67
// units per segment. test/console/segments.test.ts proves both give the same answers.

const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '^{}\\[~]|€\f';

const BASIC = new Set(GSM7_BASIC);
const EXTENSION = new Set(GSM7_EXTENSION);
const LIMITS = { 'GSM-7': { single: 160, multi: 153 }, 'UCS-2': { single: 70, multi: 67 } };

/** { encoding, segments, units } of a text; the empty text is one segment. */
export function countSegments(text) {
  let septets = 0;
  let gsm = true;
  for (const ch of text) {
    if (BASIC.has(ch)) septets += 1;
    else if (EXTENSION.has(ch)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  const encoding = gsm ? 'GSM-7' : 'UCS-2';
  const units = gsm ? septets : text.length;
  const { single, multi } = LIMITS[encoding];
  const segments = units <= single ? 1 : Math.ceil(units / multi);
  return { encoding, segments, units };
}

/** The characters that force UCS-2, each once, in order of appearance. */
export function nonGsmCharacters(text) {
  const out = [];
  for (const ch of text) if (!BASIC.has(ch) && !EXTENSION.has(ch) && !out.includes(ch)) out.push(ch);
  return out;
}

// Smart encoding (docs/encoding.md): the same table as the server's SMART_ENCODING in
// src/messaging/segments.ts; test/console/segments.test.ts proves both give the same text.
const SMART_ENCODING = {
  '\u2018': '\u0027',
  '\u2019': '\u0027',
  '\u201A': '\u0027',
  '\u201B': '\u0027',
  '\u2032': '\u0027',
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u2033': '"',
  '\u00AB': '"',
  '\u00BB': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2026': '...',
  '\u00A0': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2009': ' ',
  '\u200A': ' ',
  '\u202F': ' ',
  '\u200B': '',
  '\u2022': '-',
  '\u02C6': '^',
  '\u02DC': '~',
  '\u2039': '<',
  '\u203A': '>',
};
const SMART_RE = new RegExp(`[${Object.keys(SMART_ENCODING).join('')}]`, 'g');

/** Typographic look-alikes replaced by GSM-7 characters, as the server sends a text with smart encoding on. */
export function smartEncode(text) {
  return text.replace(SMART_RE, (ch) => SMART_ENCODING[ch] ?? ch);
}

/** A one-line summary: "42 / 160 characters · GSM-7 · 1 segment" (counted smart-encoded when `smart`). */
export function describeSegments(text, smart = false) {
  const { encoding, segments, units } = countSegments(smart ? smartEncode(text) : text);
  const { single, multi } = LIMITS[encoding];
  const capacity = segments === 1 ? single : segments * multi;
  const unitName = encoding === 'GSM-7' ? 'characters' : 'UCS-2 units';
  return `${units} / ${capacity} ${unitName} · ${encoding} · ${segments} segment${segments === 1 ? '' : 's'}`;
}
