import type { PDU } from 'smpp';
import type { Db } from '../db/client.ts';
import type { SmppCredentialRow } from '../db/queries/smpp.ts';
import type { SendSettings } from '../domain/send/accept/send-messages.ts';
import { submitSmppMessage } from '../domain/smpp/submit-message.ts';
import { type ParsedMobile, parseMobile } from '../messaging/phone.ts';
import { MAX_TEXT_LENGTH } from '../messaging/text-rules.ts';
import { MAX_VALIDITY_SECONDS } from '../messaging/validity.ts';
import { validitySeconds } from '../providers/smpp/time.ts';
import { newId } from '../util/ids.ts';
import type { PartsAssembler } from './assembler.ts';
import type { SubmitBatcher } from './batcher.ts';
import { STATUS } from './status.ts';
import { submittedText } from './text.ts';

/** What a submission is answered: a status, and on success the response's parameters. */
export type SubmitAnswer = { status: number; params?: Record<string, unknown> };

/** What a submission needs of its server. */
export interface SubmitContext {
  db: Db;
  /** The service's settings the sends apply (its price table). */
  settings: SendSettings;
  parts: PartsAssembler;
  /** Submissions to one destination go in batches (one transaction for those arriving together). */
  batcher: SubmitBatcher;
}

/** An address an ESME gave, as an E.164 number when it is one ('+' and digits), else as given. */
function e164(addr: unknown): string {
  const value = typeof addr === 'string' ? addr.trim() : '';
  const digits = value.startsWith('+') ? value.slice(1) : value;
  return /^\d{4,15}$/.test(digits) ? `+${digits}` : value;
}

/** submit_sm: one destination (ESME_RINVDSTADR when it is not a valid number). */
export async function submitSm(
  ctx: SubmitContext,
  pdu: PDU,
  credential: SmppCredentialRow,
  bind: object,
): Promise<SubmitAnswer> {
  const destination = parseMobile(e164(pdu.destination_addr));
  if (!destination) return { status: STATUS.RINVDSTADR };
  const r = await submit(ctx, pdu, credential, bind, [destination]);
  return r.status === STATUS.ROK ? { status: STATUS.ROK, params: { message_id: r.messageId } } : r;
}

/** submit_multi: the valid destinations in one send; the others listed in unsuccess_sme. */
export async function submitMulti(
  ctx: SubmitContext,
  pdu: PDU,
  credential: SmppCredentialRow,
  bind: object,
): Promise<SubmitAnswer> {
  const dests = Array.isArray(pdu.dest_address) ? (pdu.dest_address as Record<string, unknown>[]) : [];
  if (dests.length === 0) return { status: STATUS.RINVNUMDESTS };
  const unsuccess: Record<string, unknown>[] = [];
  const mobiles = new Map<string, ParsedMobile>();
  for (const d of dests) {
    const parsed = 'dl_name' in d ? undefined : parseMobile(e164(d.destination_addr));
    if (parsed) mobiles.set(parsed.number, parsed);
    else
      unsuccess.push({
        dest_addr_ton: Number(d.dest_addr_ton ?? 0),
        dest_addr_npi: Number(d.dest_addr_npi ?? 0),
        destination_addr: String(d.destination_addr ?? d.dl_name ?? ''),
        error_status_code: 'dl_name' in d ? STATUS.RINVDLNAME : STATUS.RINVDSTADR,
      });
  }
  if (mobiles.size === 0) return { status: STATUS.RINVDSTADR };
  const r = await submit(ctx, pdu, credential, bind, [...mobiles.values()]);
  if (r.status !== STATUS.ROK) return r;
  return { status: STATUS.ROK, params: { message_id: r.messageId, unsuccess_sme: unsuccess } };
}

/**
 * Checks and sends one submission: its source, text (data coding, length), concatenation (a part
 * is answered its own id and kept until the last one arrives, or refused when the bind's,
 * credential's or server's budget of pending parts is spent), then the API's send path.
 */
async function submit(
  ctx: SubmitContext,
  pdu: PDU,
  credential: SmppCredentialRow,
  bind: object,
  mobiles: ParsedMobile[],
): Promise<{ status: number; messageId?: string }> {
  const destinations = mobiles.map((m) => m.number);
  const source = e164(pdu.source_addr);
  if (!source.startsWith('+')) return { status: STATUS.RINVSRCADR };
  // validity_period, absolute or relative (§7.1.1): a time that is not one, or already past, is
  // ESME_RINVEXPIRY; a longer one than Sparrow keeps a message is cut to that (an SMSC may).
  const validity = validitySeconds(pdu.validity_period);
  if (validity === null) return { status: STATUS.RINVEXPIRY };
  const submitted = submittedText(pdu);
  if (!submitted) return { status: STATUS.RINVDCS };
  let text = submitted.text;
  let otherPartIds: string[] | undefined;
  const registered = Number(pdu.registered_delivery ?? 0) & 0x03;
  if (submitted.part) {
    const partId = newId();
    const key = `${credential.id}|${source}|${destinations.join(',')}`;
    const origin = {
      bind,
      credentialId: credential.id,
      accountId: credential.account_id,
      source,
      destination: destinations[0],
      receiptMask: registered === 3 ? 1 : registered,
    };
    const outcome = ctx.parts.add(key, origin, submitted.part, text, partId);
    if (outcome.kind === 'refused')
      return { status: outcome.reason === 'full' ? STATUS.RMSGQFUL : STATUS.RINVMSGLEN };
    if (outcome.kind === 'kept') return { status: STATUS.ROK, messageId: partId };
    text = outcome.text;
    otherPartIds = outcome.otherIds;
  }
  if (text.length === 0 || text.length > MAX_TEXT_LENGTH) return { status: STATUS.RINVMSGLEN };
  const submission = {
    accountId: credential.account_id,
    credentialId: credential.id,
    systemId: credential.system_id,
    source,
    destinations,
    mobiles,
    text,
    receiptMask: registered === 3 ? 1 : registered,
    otherPartIds,
    validityPeriod: validity === undefined ? undefined : Math.min(validity, MAX_VALIDITY_SECONDS),
  };
  const outcome =
    destinations.length === 1
      ? await ctx.batcher.submit(submission)
      : await submitSmppMessage(ctx.db, submission, ctx.settings);
  if (outcome.ok) return { status: STATUS.ROK, messageId: outcome.messageIds[0] };
  const status =
    outcome.reason === 'source'
      ? STATUS.RINVSRCADR
      : outcome.reason === 'balance'
        ? STATUS.RSUBMITFAIL
        : STATUS.RINVMSGLEN;
  return { status };
}
