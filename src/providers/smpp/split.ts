/**
 * Per-part encoding for SMPP: the text in GSM 03.38 (one septet per octet, unpacked, as SMPP
 * carries data_coding 0) or UCS-2 (UTF-16BE), split into concatenated parts with a UDH when it
 * does not fit one message. The counts follow docs/interface.md: 160 septets / 70 units in one
 * message, 153 / 67 per part when split; an extension character (two septets) and a surrogate
 * pair (two units) are never cut across parts.
 */

// GSM 03.38 default alphabet, in code order (0x1B is the escape to the extension table).
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION: Record<string, number> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};
const GSM_CODE = new Map<string, number>();
for (let i = 0; i < GSM_BASIC.length; i++) if (i !== 0x1b) GSM_CODE.set(GSM_BASIC[i], i);
const QUESTION_MARK = 0x3f;
/** GSM code of each UTF-16 unit below 256 in the basic table, -1 for the others (the fast path's table). */
const BASIC_BELOW_256 = new Int16Array(256).fill(-1);
for (const [ch, code] of GSM_CODE) if (ch.charCodeAt(0) < 256) BASIC_BELOW_256[ch.charCodeAt(0)] = code;

/** SMPP data_coding values we send: 0 (SMSC default alphabet, GSM 03.38) and 8 (UCS-2). */
export type DataCoding = 0 | 8;

/** A message ready for submit_sm: its data_coding and the payload of each part (UDH not included). */
export interface SmppParts {
  dataCoding: DataCoding;
  parts: Buffer[];
}

const LIMITS = {
  0: { single: 160, part: 153 },
  8: { single: 70, part: 67 },
} as const;

/** The most parts a concatenated message can have (the part count is one octet). */
export const MAX_PARTS = 255;

/** Encodes and, when needed, splits a text. GSM-7 characters outside the alphabet become '?'. */
export function splitForSmpp(text: string, encoding: 'GSM-7' | 'UCS-2'): SmppParts {
  if (encoding === 'GSM-7' && text.length <= LIMITS[0].single) {
    const single = basicSingle(text);
    if (single) return { dataCoding: 0, parts: [single] };
  }
  const dataCoding: DataCoding = encoding === 'GSM-7' ? 0 : 8;
  // Units: each entry is one character's encoding (1 or 2 units), so chunks never cut one.
  const chars: number[][] = [];
  let total = 0;
  if (dataCoding === 0) {
    for (const ch of text) {
      const basic = GSM_CODE.get(ch);
      const ext = GSM_EXTENSION[ch];
      const units = basic !== undefined ? [basic] : ext !== undefined ? [0x1b, ext] : [QUESTION_MARK];
      chars.push(units);
      total += units.length;
    }
  } else {
    for (const ch of text) {
      const units: number[] = [];
      for (let i = 0; i < ch.length; i++) units.push(ch.charCodeAt(i));
      chars.push(units);
      total += units.length;
    }
  }
  const limit = LIMITS[dataCoding];
  const chunks: number[][] = [];
  if (total <= limit.single) {
    chunks.push(chars.flat());
  } else {
    let current: number[] = [];
    for (const units of chars) {
      if (current.length + units.length > limit.part) {
        chunks.push(current);
        current = [];
      }
      current.push(...units);
    }
    if (current.length) chunks.push(current);
  }
  if (chunks.length > MAX_PARTS)
    throw new RangeError(`message needs ${chunks.length} parts; at most ${MAX_PARTS}`);
  return { dataCoding, parts: chunks.map((units) => encodeUnits(units, dataCoding)) };
}

/**
 * The common case without the general path's per-character arrays: a text of basic-table
 * characters (no extension, nothing outside the alphabet) that fits one message. Undefined otherwise.
 */
function basicSingle(text: string): Buffer | undefined {
  const out = Buffer.allocUnsafe(text.length);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const code = unit < 256 ? BASIC_BELOW_256[unit] : -1;
    if (code < 0) return undefined;
    out[i] = code;
  }
  return out;
}

function encodeUnits(units: number[], dataCoding: DataCoding): Buffer {
  if (dataCoding === 0) return Buffer.from(units);
  const buf = Buffer.alloc(units.length * 2);
  for (let i = 0; i < units.length; i++) buf.writeUInt16BE(units[i], i * 2);
  return buf;
}

/** The concatenation UDH (IE 0x00: 8-bit reference, part count, part number from 1). */
export function concatUdh(reference: number, count: number, index: number): Buffer {
  return Buffer.from([0x05, 0x00, 0x03, reference & 0xff, count, index]);
}
