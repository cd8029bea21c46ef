/**
 * Texts of the SMPP server: short_message / message_payload as the `smpp` package decoded them,
 * turned into the text Sparrow sends (data codings 0 GSM-7, 1 IA5, 3 Latin-1, 8 UCS-2), their
 * concatenation (UDH or SAR TLVs), and the encoding of deliver_sm texts.
 */
import type { DecodedMessage, PDU } from 'smpp';
import { countSegments } from '../messaging/segments.ts';
import { concatInfo } from '../providers/smpp/pdu.ts';
import { splitForSmpp } from '../providers/smpp/split.ts';

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_CODE = new Map<string, number>();
for (let i = 0; i < GSM_BASIC.length; i++) GSM_CODE.set(GSM_BASIC[i], i);

/** The data codings the server takes (SMPP 3.4 §5.2.19). */
export const DATA_CODINGS = new Set([0, 1, 3, 8]);

/** The part of a concatenated message a submission carries. */
export interface PartInfo {
  ref: number;
  count: number;
  index: number;
}

/** A submission's text and, when it is one part of several, which one. */
export interface SubmittedText {
  text: string;
  part?: PartInfo;
}

function decoded(value: unknown): { text: string; udh: Buffer[] } {
  if (value === null || value === undefined) return { text: '', udh: [] };
  if (typeof value === 'string') return { text: value, udh: [] };
  if (Buffer.isBuffer(value)) return { text: value.toString('latin1'), udh: [] };
  const m = value as DecodedMessage;
  const text =
    typeof m.message === 'string'
      ? m.message
      : Buffer.isBuffer(m.message)
        ? m.message.toString('latin1')
        : '';
  return { text, udh: Array.isArray(m.udh) ? m.udh : [] };
}

/**
 * The text of a submit_sm / submit_multi: message_payload when present, else short_message. The
 * package reads data_coding 1 (IA5) with its GSM table, so those characters are mapped back to
 * their ASCII codes. Answers undefined for a data coding the server does not take.
 */
export function submittedText(pdu: PDU): SubmittedText | undefined {
  const dataCoding = Number(pdu.data_coding ?? 0);
  if (!DATA_CODINGS.has(dataCoding)) return undefined;
  const payload = pdu.message_payload;
  const { text: raw, udh } = decoded(payload !== undefined && payload !== null ? payload : pdu.short_message);
  const text =
    dataCoding === 1 ? [...raw].map((ch) => String.fromCharCode(GSM_CODE.get(ch) ?? 0x3f)).join('') : raw;
  const fromUdh = concatInfo(udh);
  if (fromUdh && fromUdh.count > 1 && fromUdh.index >= 1 && fromUdh.index <= fromUdh.count)
    return { text, part: fromUdh };
  const ref = pdu.sar_msg_ref_num;
  const count = pdu.sar_total_segments;
  const index = pdu.sar_segment_seqnum;
  if (typeof ref === 'number' && typeof count === 'number' && typeof index === 'number' && count > 1) {
    if (index >= 1 && index <= count) return { text, part: { ref, count, index } };
  }
  return { text };
}

/**
 * short_message or message_payload for a deliver_sm carrying `text`: GSM-7 (data_coding 0) when
 * every character is in the GSM alphabet, else UCS-2 (8); in message_payload when it does not fit
 * one short message.
 */
export function deliverText(text: string): Record<string, unknown> {
  const { encoding } = countSegments(text);
  const split = splitForSmpp(text, encoding);
  const bytes = Buffer.concat(split.parts);
  if (split.parts.length === 1) return { data_coding: split.dataCoding, short_message: bytes };
  return { data_coding: split.dataCoding, short_message: Buffer.alloc(0), message_payload: bytes };
}
