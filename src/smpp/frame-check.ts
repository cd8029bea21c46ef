/**
 * A strict look at the body of a submit_sm / submit_multi before the package decodes it (the
 * package reads leniently: a field cut short or a TLV whose length runs past the PDU decodes as
 * whatever bytes are there). SMPP 3.4 §5.2 mandatory parameters, then TLVs (§5.3).
 */
import { STATUS } from './status.ts';

type Field = 'c' | 'i' | 'sm' | 'dests';

const SUBMIT_SM: Field[] = [
  'c',
  'i',
  'i',
  'c',
  'i',
  'i',
  'c',
  'i',
  'i',
  'i',
  'c',
  'c',
  'i',
  'i',
  'i',
  'i',
  'sm',
];
const SUBMIT_MULTI: Field[] = [
  'c',
  'i',
  'i',
  'c',
  'dests',
  'i',
  'i',
  'i',
  'c',
  'c',
  'i',
  'i',
  'i',
  'i',
  'sm',
];

/** Longest C-octet string of these PDUs (short_message-free fields are all short). */
const CSTRING_MAX = 65;

/** Answers the status a malformed body deserves, or 0 when its layout is sound. */
export function submitLayoutStatus(frame: Buffer, commandId: number): number {
  const fields = commandId === 0x04 ? SUBMIT_SM : commandId === 0x21 ? SUBMIT_MULTI : undefined;
  if (!fields) return 0;
  let at = 16;
  const end = frame.length;
  const cstring = (): boolean => {
    const stop = frame.indexOf(0, at);
    if (stop < 0 || stop - at >= CSTRING_MAX) return false;
    at = stop + 1;
    return true;
  };
  for (const f of fields) {
    if (f === 'i') {
      if (at + 1 > end) return STATUS.RINVCMDLEN;
      at += 1;
    } else if (f === 'c') {
      if (!cstring()) return STATUS.RINVCMDLEN;
    } else if (f === 'sm') {
      if (at + 1 > end) return STATUS.RINVCMDLEN;
      const length = frame[at];
      at += 1 + length;
      if (at > end) return STATUS.RINVMSGLEN;
    } else {
      if (at + 1 > end) return STATUS.RINVCMDLEN;
      let count = frame[at++];
      while (count-- > 0) {
        if (at + 1 > end) return STATUS.RINVCMDLEN;
        const flag = frame[at++];
        if (flag === 1) {
          if (at + 2 > end) return STATUS.RINVCMDLEN;
          at += 2;
        } else if (flag !== 2) return STATUS.RINVCMDLEN;
        if (!cstring()) return STATUS.RINVCMDLEN;
      }
    }
  }
  while (at < end) {
    if (at + 4 > end) return STATUS.RINVTLVSTREAM;
    const length = frame.readUInt16BE(at + 2);
    at += 4 + length;
    if (at > end) return STATUS.RINVTLVLEN;
  }
  return 0;
}
