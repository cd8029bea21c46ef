import type { Db, Queryable } from '../../db/client.ts';
import { activeAccountNumbers } from '../../db/queries/phone-numbers.ts';
import { enqueueFinalReceipts, insertSmppSubmissions } from '../../db/queries/smpp.ts';
import { AppError } from '../../errors.ts';
import type { ParsedMobile } from '../../messaging/phone.ts';
import type { Actor } from '../actor.ts';
import { type SendSettings, sendMessages } from '../send/accept/send-messages.ts';

/** One text an ESME submitted (submit_sm, or submit_multi to several recipients). */
export interface SmppSubmission {
  accountId: string;
  credentialId: string;
  systemId: string;
  /** Our number, E.164. */
  source: string;
  /** Recipients, E.164 (already checked to be valid numbers). */
  destinations: string[];
  /** The same recipients as parsed when checked (a batch reuses them instead of parsing again). */
  mobiles?: ParsedMobile[];
  text: string;
  /** registered_delivery & 3: 0 no receipt, 1 every final outcome, 2 failures only. */
  receiptMask: number;
  /** Ids the earlier parts of a concatenated message were answered with (receipts go to each). */
  otherPartIds?: string[];
  /** The submission's validity_period in seconds from now; absent: the account's default, if any. */
  validityPeriod?: number;
}

/** What became of a submission: the message id per recipient, or why nothing was sent. */
export type SmppSubmitOutcome =
  | { ok: true; messageIds: string[] }
  | { ok: false; reason: 'source' | 'balance' | 'text'; description: string };

/**
 * Sends an SMPP submission through the API's send path (sendMessages: contacts created for new
 * numbers, opt-outs and blocks refused as failed messages, pricing, the balance charged, events and
 * webhooks, the sender's throughput at dispatch), from the one number the ESME named, with its text
 * taken literally (no merge fields). When a receipt is asked for, the ids the ESME was answered are
 * recorded in the same transaction, so the status events of the messages find them. Prices are the
 * service's (`settings`).
 */
export async function submitSmppMessage(
  db: Db,
  s: SmppSubmission,
  settings: SendSettings,
): Promise<SmppSubmitOutcome> {
  const numbers = await activeAccountNumbers(db, s.accountId);
  const sender = numbers.find((n) => n.number === s.source && n.verified);
  if (!sender)
    return {
      ok: false,
      reason: 'source',
      description: `${s.source} is not a sending number of this account`,
    };
  const by: Actor = { id: s.credentialId, name: s.systemId, source: 'smpp' };
  let messageIds: string[] = [];
  try {
    await sendMessages(
      db,
      s.accountId,
      {
        contacts: s.destinations.map((number) => ({ mobile: { number } })),
        template: s.text,
        validityPeriod: s.validityPeriod,
      },
      by,
      settings,
      {
        sender: { id: sender.id, number: sender.number },
        literal: true,
        relay: true,
        within: async (tx, result) => {
          messageIds = await recordSubmission(tx, s, result.jobId);
        },
      },
    );
  } catch (err) {
    if (err instanceof AppError) {
      if (err.code === 'ACCT-002') return { ok: false, reason: 'balance', description: err.message };
      if (err.code === 'MSG-003' || err.code === 'MSG-002')
        return { ok: false, reason: 'text', description: err.message };
      if (err.code === 'NUM-010' || err.code === 'GRP-003')
        return { ok: false, reason: 'source', description: err.message };
    }
    throw err;
  }
  return { ok: true, messageIds };
}

/** The job's message id for each destination, in order; the submission recorded when receipts are asked for. */
async function recordSubmission(tx: Queryable, s: SmppSubmission, jobId: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string; to_number: string }>(
    'SELECT id, to_number FROM messages WHERE account_id = $1 AND job_id = $2',
    [s.accountId, jobId],
  );
  const byNumber = new Map(rows.map((r) => [r.to_number, r.id]));
  const ids = s.destinations.map((d) => byNumber.get(d) ?? '');
  if (s.receiptMask === 0) return ids;
  const unique = [...new Set(ids.filter((id) => id !== ''))];
  await insertSmppSubmissions(
    tx,
    s.accountId,
    unique.map((messageId, i) => ({
      messageId,
      credentialId: s.credentialId,
      smppIds: i === 0 ? [...(s.otherPartIds ?? []), messageId] : [messageId],
      receiptMask: s.receiptMask,
    })),
  );
  await enqueueFinalReceipts(tx, s.accountId, unique);
  return ids;
}
