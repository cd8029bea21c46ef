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

/** A one-line summary: "42 / 160 characters · GSM-7 · 1 segment". */
export function describeSegments(text) {
  const { encoding, segments, units } = countSegments(text);
  const { single, multi } = LIMITS[encoding];
  const capacity = segments === 1 ? single : segments * multi;
  const unitName = encoding === 'GSM-7' ? 'characters' : 'UCS-2 units';
  return `${units} / ${capacity} ${unitName} · ${encoding} · ${segments} segment${segments === 1 ? '' : 's'}`;
}
