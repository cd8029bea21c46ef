/**
 * SMS encoding and segment counting (3GPP TS 23.038). The SQL functions `sparrow_encoding`,
 * `sparrow_units` and `sparrow_segments` (migration 0030) mirror this module exactly; a test
 * proves that both agree.
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

const LIMITS: Record<Encoding, { single: number; multi: number }> = {
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
  const { single, multi } = LIMITS[encoding];
  const segments = units <= single ? 1 : Math.ceil(units / multi);
  return { encoding, segments, units };
}
