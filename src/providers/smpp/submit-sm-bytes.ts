import type { PDU } from 'smpp';

/**
 * A submit_sm written directly, byte for byte as the `smpp` package writes it (test/providers/
 * smpp-submit-sm-bytes.test.ts compares the two), for the parameters the provider sends: the
 * package's toBuffer() walks every parameter and TLV of the command through its filters twice (for
 * the size, then to write), a fifth of the dispatcher's CPU per message on bench:peer's SMPP race.
 *
 * The mandatory parameters in their order (SMPP 3.4 §4.4.1); sm_length is short_message's.
 */
const CSTRINGS = new Set([
  'service_type',
  'source_addr',
  'destination_addr',
  'schedule_delivery_time',
  'validity_period',
]);
const ORDER = [
  'service_type',
  'source_addr_ton',
  'source_addr_npi',
  'source_addr',
  'dest_addr_ton',
  'dest_addr_npi',
  'destination_addr',
  'esm_class',
  'protocol_id',
  'priority_flag',
  'schedule_delivery_time',
  'validity_period',
  'registered_delivery',
  'replace_if_present_flag',
  'data_coding',
  'sm_default_msg_id',
] as const;
const KNOWN = new Set<string>([...ORDER, 'short_message']);
const SUBMIT_SM = 0x00000004;
const HEADER = 16;

/** An SMPP time as the package's filter writes a string: up to 12 digits become a relative time. */
function timeField(value: string): string {
  return value.length > 0 && value.length <= 12 ? `${`000000000000${value}`.slice(-12)}000R` : value;
}

/**
 * The bytes of a submit_sm of `params` under `sequence`, or undefined when the parameters are not
 * ones this writes (a TLV, a Date, a text short_message): the caller then sends through the package.
 */
export function submitSmBytes(params: Record<string, unknown>, sequence: number): Buffer | undefined {
  const message = params.short_message;
  if (!Buffer.isBuffer(message) || message.length > 255) return undefined;
  const strings = new Map<string, string>();
  let length = HEADER + message.length + 1;
  for (const key of Object.keys(params)) if (!KNOWN.has(key)) return undefined;
  for (const key of ORDER) {
    const value = params[key];
    if (CSTRINGS.has(key)) {
      if (value !== undefined && typeof value !== 'string') return undefined;
      // The package writes a C-octet string as 'ascii' (one byte a character).
      const text =
        key.endsWith('_time') || key === 'validity_period' ? timeField(value ?? '') : (value ?? '');
      strings.set(key, text);
      length += text.length + 1;
    } else {
      if (
        value !== undefined &&
        value !== null &&
        !(Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 255)
      )
        return undefined;
      length += 1;
    }
  }
  const b = Buffer.allocUnsafe(length);
  b.writeUInt32BE(length, 0);
  b.writeUInt32BE(SUBMIT_SM, 4);
  b.writeUInt32BE(0, 8);
  b.writeUInt32BE(sequence >>> 0, 12);
  let at = HEADER;
  for (const key of ORDER) {
    const text = strings.get(key);
    if (text !== undefined) {
      at += b.write(text, at, 'latin1');
      b[at++] = 0;
    } else b[at++] = (params[key] as number | null | undefined) ?? 0;
  }
  b[at++] = message.length;
  message.copy(b, at);
  return b;
}

/**
 * A submit_sm for Session.send, written once: the package gives it its sequence number, then asks
 * for its bytes. Undefined when submitSmBytes cannot write `params`.
 */
export function rawSubmitSm(params: Record<string, unknown>): PDU | undefined {
  const bytes = submitSmBytes(params, 0);
  if (bytes === undefined) return undefined;
  const pdu: PDU = {
    command: 'submit_sm',
    command_status: 0,
    sequence_number: 0,
    isResponse: () => false,
    response: () => {
      throw new Error('a submit_sm written directly has no response of its own');
    },
    toBuffer: () => {
      bytes.writeUInt32BE(pdu.sequence_number >>> 0, 12);
      return bytes;
    },
  };
  return pdu;
}
