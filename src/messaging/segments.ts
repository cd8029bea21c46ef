/**
 * SMS encoding and segment counting (3GPP TS 23.038), the one definition: the server uses this
 * module and the web console is served a browser build of it (src/http/routes/console.ts). The SQL
 * functions `sparrow_encoding`, `sparrow_units` and `sparrow_segments` (migration 0030) mirror it
 * for set-based sends; test/messaging/vectors.test.ts holds all three to the shared vectors in
 * test/messaging/vectors/segments.json.
 */

/** The GSM-7 default alphabet (basic table), one septet each. ESC itself is not accepted as text. */
export const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** The GSM-7 extension table: each character costs two septets (ESC + code). */
export const GSM7_EXTENSION = '^{}\\[~]|€\f';

const BASIC = new Set(GSM7_BASIC);
const EXTENSION = new Set(GSM7_EXTENSION);

/** A message's wire encoding. */
export type Encoding = 'GSM-7' | 'UCS-2';

/** How a text is encoded and how many segments it takes. */
export interface SegmentInfo {
  encoding: Encoding;
  /** Parts the carrier bills: 160/153 septets (GSM-7) or 70/67 UTF-16 units (UCS-2). */
  segments: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  units: number;
}

/** Units per segment: a text that fits `single` is one segment, a longer one takes parts of `multi`. */
export const SEGMENT_LIMITS: Readonly<Record<Encoding, { readonly single: number; readonly multi: number }>> =
  {
    'GSM-7': { single: 160, multi: 153 },
    'UCS-2': { single: 70, multi: 67 },
  };

/** Counts the encoding, septets or UTF-16 units, and segments of a text. Empty text is 1 segment. */
export function countSegments(text: string): SegmentInfo {
  let septets = 0;
  let gsm = true;
  // for..of walks code points, so a surrogate pair is one step (and never GSM-7).
  for (const ch of text) {
    if (BASIC.has(ch)) septets += 1;
    else if (EXTENSION.has(ch)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  const encoding: Encoding = gsm ? 'GSM-7' : 'UCS-2';
  // String length is already in UTF-16 code units: characters outside the BMP count two.
  const units = gsm ? septets : text.length;
  const { single, multi } = SEGMENT_LIMITS[encoding];
  const segments = units <= single ? 1 : Math.ceil(units / multi);
  return { encoding, segments, units };
}

/** The characters that force UCS-2 (outside both GSM-7 tables), each once, in order of appearance. */
export function nonGsmCharacters(text: string): string[] {
  const out: string[] = [];
  for (const ch of text) if (!BASIC.has(ch) && !EXTENSION.has(ch) && !out.includes(ch)) out.push(ch);
  return out;
}

/**
 * Look-alike characters and their GSM-7 equivalents ("smart encoding": on unless the account or
 * the send turns it off, docs/encoding.md). The SQL function `sparrow_smart_encode` (migration
 * 0295) mirrors this table for merge-field values rendered in SQL; test/messaging/segments.test.ts
 * proves both agree on every entry.
 */
export const SMART_ENCODING: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
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

/** Replaces typographic look-alikes with GSM-7 characters, so a text is not forced into UCS-2. */
export function smartEncode(text: string): string {
  return text.replace(SMART_RE, (ch) => SMART_ENCODING[ch] ?? ch);
}

/** The text as it is stored and sent: smart-encoded when `smart`, else unchanged. */
export function encodeText(text: string, smart: boolean): string {
  return smart ? smartEncode(text) : text;
}
