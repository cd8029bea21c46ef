/** PDU field helpers of the SMPP adapter: addresses, decoded texts, concatenated inbound parts. */
import type { DecodedMessage } from 'smpp';
import { relativeTime } from './time.ts';

const TON_INTERNATIONAL = 1;
const NPI_ISDN = 1;
const INBOUND_PARTS_TTL_MS = 5 * 60_000;

/** Address fields for an E.164 number ('+' dropped, international), an alphanumeric sender or a short code. */
export function address(value: string): { addr: string; ton: number; npi: number } {
  if (/^\+\d+$/.test(value)) return { addr: value.slice(1), ton: TON_INTERNATIONAL, npi: NPI_ISDN };
  if (/^\d+$/.test(value)) return { addr: value, ton: 0, npi: NPI_ISDN };
  return { addr: value, ton: 5, npi: 0 };
}

/** esm_class with the UDH indicator: the short_message starts with a user data header. */
const ESM_UDHI = 0x40;

/**
 * The parameters of one submit_sm of an outgoing message: its addresses, a receipt always asked
 * for, the part's payload after its UDH (a concatenated message's part), and what is left of the
 * message's validity as a relative time (SMPP 3.4 §7.1.1: the SMSC gives up after it).
 */
export function submitSmParams(o: {
  from: string;
  to: string;
  dataCoding: number;
  validitySeconds?: number;
  udh?: Buffer;
  payload: Buffer;
}): Record<string, unknown> {
  const src = address(o.from);
  const dst = address(o.to);
  return {
    source_addr: src.addr,
    source_addr_ton: src.ton,
    source_addr_npi: src.npi,
    destination_addr: dst.addr,
    dest_addr_ton: dst.ton,
    dest_addr_npi: dst.npi,
    registered_delivery: 1,
    data_coding: o.dataCoding,
    esm_class: o.udh ? ESM_UDHI : 0,
    ...(o.validitySeconds === undefined ? {} : { validity_period: relativeTime(o.validitySeconds) }),
    short_message: o.udh ? Buffer.concat([o.udh, o.payload]) : o.payload,
  };
}

/** Our form of an address the SMSC sent: international numbers get their '+'. */
export function fromAddress(addr: string, ton: number): string {
  if (/^\d+$/.test(addr) && (ton === TON_INTERNATIONAL || addr.length >= 10)) return `+${addr}`;
  return addr;
}

/** The text and UDH elements of a short_message or message_payload as the package decoded it. */
export function messageText(value: unknown): { text: string; udh: Buffer[] } {
  if (value === null || value === undefined) return { text: '', udh: [] };
  if (Buffer.isBuffer(value)) return { text: value.toString('latin1'), udh: [] };
  if (typeof value === 'string') return { text: value, udh: [] };
  const m = value as DecodedMessage;
  const text = typeof m.message === 'string' ? m.message : (m.message?.toString('latin1') ?? '');
  return { text, udh: m.udh ?? [] };
}

/** The concatenation element of an inbound UDH, if any: 8-bit (IE 0x00) or 16-bit (IE 0x08) reference. */
export function concatInfo(udh: Buffer[]): { ref: number; count: number; index: number } | undefined {
  for (const ie of udh) {
    if (ie[0] === 0x00 && ie.length >= 5) return { ref: ie[2], count: ie[3], index: ie[4] };
    if (ie[0] === 0x08 && ie.length >= 6) return { ref: ie.readUInt16BE(2), count: ie[4], index: ie[5] };
  }
  return undefined;
}

/** The parts of concatenated inbound messages until all have arrived (abandoned ones expire). */
export class InboundParts {
  private pending = new Map<string, { parts: Map<number, string>; count: number; first: number }>();

  /** Keeps the parts of a concatenated inbound message; answers the whole text once all are in. */
  add(key: string, c: { count: number; index: number }, text: string): string | undefined {
    const now = Date.now();
    for (const [k, v] of this.pending) if (now - v.first > INBOUND_PARTS_TTL_MS) this.pending.delete(k);
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { parts: new Map(), count: c.count, first: now };
      this.pending.set(key, entry);
    }
    entry.parts.set(c.index, text);
    if (entry.parts.size < entry.count) return undefined;
    this.pending.delete(key);
    let out = '';
    for (let i = 1; i <= entry.count; i++) out += entry.parts.get(i) ?? '';
    return out;
  }
}
