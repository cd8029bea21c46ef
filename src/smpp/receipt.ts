/**
 * deliver_sm parameters of the SMPP server: delivery receipts in the de-facto standard text
 * (SMPP 3.4 Appendix B) with the receipted_message_id and message_state TLVs, and inbound texts.
 */
import type { SmppOutboxItem } from '../db/queries/smpp.ts';
import { deliverText } from './text.ts';

const TON_INTERNATIONAL = 1;
const NPI_ISDN = 1;
const ESM_RECEIPT = 0x04;

/** Receipt stat words and message_state values (SMPP 5.0 §4.7.15) of our final statuses. */
const FINAL: Record<string, { stat: string; state: number }> = {
  delivered: { stat: 'DELIVRD', state: 2 },
  undelivered: { stat: 'UNDELIV', state: 5 },
  failed: { stat: 'REJECTD', state: 8 },
};
/** A message whose validity period ended before it was sent (MSG-012, docs/encoding.md). */
const EXPIRED = { stat: 'EXPIRED', state: 3 };

/** The stat word and message_state of an item's final status. */
function finalOf(item: SmppOutboxItem): { stat: string; state: number } {
  const status = item.status ?? 'failed';
  if (status === 'failed' && item.error?.code === 'MSG-012') return EXPIRED;
  return FINAL[status] ?? FINAL.failed;
}

function address(e164: string | null): { addr: string; ton: number; npi: number } {
  const value = e164 ?? '';
  if (/^\+\d+$/.test(value)) return { addr: value.slice(1), ton: TON_INTERNATIONAL, npi: NPI_ISDN };
  return { addr: value, ton: 0, npi: 0 };
}

/** YYMMDDhhmm in UTC, as receipts write dates. */
export function receiptDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}`;
}

/** The three digits of `err:`: 000 when delivered, else the digits an error code ends with. */
function errDigits(status: string, error: SmppOutboxItem['error']): string {
  if (status === 'delivered') return '000';
  const digits = /(\d{1,3})$/.exec(error?.code ?? '')?.[1];
  return (digits ?? '1').padStart(3, '0');
}

/** The receipt text: `id:… sub:001 dlvrd:… submit date:… done date:… stat:… err:… text:…`. */
export function receiptText(item: SmppOutboxItem, smppId: string, now = new Date()): string {
  const status = item.status ?? 'failed';
  const final = finalOf(item);
  const text = [...item.body].slice(0, 20).join('');
  return (
    `id:${smppId} sub:001 dlvrd:${status === 'delivered' ? '001' : '000'} ` +
    `submit date:${receiptDate(item.message_created_at)} done date:${receiptDate(now)} ` +
    `stat:${final.stat} err:${errDigits(status, item.error)} text:${text}`
  );
}

/** A delivery receipt's deliver_sm: from the recipient, to the sender, esm_class 0x04. */
export function receiptParams(item: SmppOutboxItem, smppId: string): Record<string, unknown> {
  const final = finalOf(item);
  const from = address(item.to_number);
  const to = address(item.from_number);
  const body = deliverText(receiptText(item, smppId));
  return {
    source_addr_ton: from.ton,
    source_addr_npi: from.npi,
    source_addr: from.addr,
    dest_addr_ton: to.ton,
    dest_addr_npi: to.npi,
    destination_addr: to.addr,
    esm_class: ESM_RECEIPT,
    registered_delivery: 0,
    // The receipt text is plain ASCII in GSM-7 or UCS-2 as its quoted text needs.
    ...body,
    receipted_message_id: smppId,
    message_state: final.state,
  };
}

/** An inbound text's deliver_sm: from the handset, to our number. Undefined when it cannot be encoded. */
export function inboundParams(item: SmppOutboxItem): Record<string, unknown> | undefined {
  const from = address(item.from_number);
  const to = address(item.to_number);
  let body: Record<string, unknown>;
  try {
    body = deliverText(item.body);
  } catch {
    return undefined;
  }
  return {
    source_addr_ton: from.ton,
    source_addr_npi: from.npi,
    source_addr: from.addr,
    dest_addr_ton: to.ton,
    dest_addr_npi: to.npi,
    destination_addr: to.addr,
    esm_class: 0,
    ...body,
  };
}
