/**
 * A submit_sm read as the `smpp` package reads it (`new smpp.PDU(frame)`), without the package, for
 * the shape nearly every ESME sends: no TLV, no UDH, no scheduled delivery time or validity period,
 * a data coding the package decodes (GSM default alphabet for 0 and 1, Latin-1 for 3, UCS-2 of even
 * length without a byte-order mark for 8). The package walks every parameter through its filters
 * and, per GSM text, counts the keys of its 128-entry table and builds a RegExp: ~12 µs a
 * submission, ~0.5 s of the server's CPU in a round of bench:peer's SMPP race. Anything else
 * answers undefined and is read by the package. The result is a PDU of the package (its prototype,
 * its fields and values), compared with the package's own reading over many shapes by
 * test/smpp/submit-sm-read.test.ts.
 */
import smpp, { type PDU } from 'smpp';

const SUBMIT_SM = 0x00000004;
const UDH_INDICATOR = 0x40;

/** The package's GSM 03.38 default alphabet, as its decoder applies it (gsmCoder.decode(bytes, 0)). */
const gsm = smpp.gsmCoder.getCoder(0);
const GSM_BYTE = Array.from({ length: 256 }, (_, b) => gsm.charListDec[b] || ' ');
const GSM_ESCAPE = new RegExp(`\x1B([${gsm.escCharsDec || gsm.escChars}])`, 'g');

function gsmText(bytes: Buffer): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) text += GSM_BYTE[bytes[i]];
  return text.includes('\x1B') ? text.replace(GSM_ESCAPE, (_, c: string) => gsm.extCharListDec[c]) : text;
}

/** The text of short_message in a data coding the fast path takes, else undefined. */
function decoded(bytes: Buffer, dataCoding: number): string | undefined {
  const coding = dataCoding & 0x0f;
  if (coding === 0 || coding === 1) return gsmText(bytes);
  if (coding === 3) return bytes.toString('latin1');
  if (coding === 8 && bytes.length % 2 === 0) {
    // The package's UCS-2 decoder drops a leading byte-order mark: left to it.
    if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return undefined;
    return Buffer.from(bytes).swap16().toString('utf16le');
  }
  return undefined;
}

/**
 * The submit_sm in `frame` (one whole PDU, its layout already checked: frame-check.ts), or
 * undefined when it is not of the shape read here.
 */
export function readSubmitSm(frame: Buffer): PDU | undefined {
  if (frame.length < 16 || frame.readUInt32BE(4) !== SUBMIT_SM || frame.readUInt32BE(0) !== frame.length)
    return undefined;
  let at = 16;
  let ok = true;
  const cstring = (): string => {
    const stop = frame.indexOf(0, at);
    if (stop < 0) {
      ok = false;
      return '';
    }
    const s = frame.toString('ascii', at, stop);
    at = stop + 1;
    return s;
  };
  const int8 = (): number => {
    if (at >= frame.length) {
      ok = false;
      return 0;
    }
    return frame[at++];
  };
  const service_type = cstring();
  const source_addr_ton = int8();
  const source_addr_npi = int8();
  const source_addr = cstring();
  const dest_addr_ton = int8();
  const dest_addr_npi = int8();
  const destination_addr = cstring();
  const esm_class = int8();
  const protocol_id = int8();
  const priority_flag = int8();
  const schedule_delivery_time = cstring();
  const validity_period = cstring();
  const registered_delivery = int8();
  const replace_if_present_flag = int8();
  const data_coding = int8();
  const sm_default_msg_id = int8();
  const length = int8();
  // Exactly the short message to the end: no TLV follows it.
  if (!ok || at + length !== frame.length) return undefined;
  if (schedule_delivery_time !== '' || validity_period !== '' || esm_class & UDH_INDICATOR) return undefined;
  const message = decoded(frame.subarray(at, at + length), data_coding);
  if (message === undefined) return undefined;
  const pdu = Object.create(smpp.PDU.prototype) as PDU;
  Object.assign(pdu, {
    command_length: frame.length,
    command_id: SUBMIT_SM,
    command_status: frame.readUInt32BE(8),
    sequence_number: frame.readUInt32BE(12),
    command: 'submit_sm',
    service_type,
    source_addr_ton,
    source_addr_npi,
    source_addr,
    dest_addr_ton,
    dest_addr_npi,
    destination_addr,
    esm_class,
    protocol_id,
    priority_flag,
    schedule_delivery_time,
    validity_period,
    registered_delivery,
    replace_if_present_flag,
    data_coding,
    sm_default_msg_id,
    short_message: { message },
  });
  return pdu;
}
