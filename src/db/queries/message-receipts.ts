/** SQL of delivery receipts: applying a provider's statuses to messages, and the receipts parked until their submission is recorded. */

import { plainArray, textArray } from '../arrays.ts';
import type { Queryable } from '../client.ts';
import { heardOnce } from './events.ts';
import { MESSAGE_EVENT_REF } from './messages.ts';

/** One receipt to apply: a provider's status for one of its message ids. */
export interface ReceiptInput {
  provider: string;
  providerMessageId: string;
  /** Our message, when the receipt names it; else it is found by (provider, providerMessageId). */
  message?: { accountId: string; id: string } | null;
  status: 'sent' | 'delivered' | 'undelivered' | 'failed';
  error?: { code: string; description: string } | null;
  at: Date;
}

/**
 * Applies receipts set-based across accounts (receipts name carrier ids, not accounts): each finds
 * its message by the reference it carries or through provider_refs, a message moves only to a
 * higher-ranked status, and each change writes a `message-status` event. A receipt whose message
 * is unknown or not yet recorded as submitted (still queued or sending) is parked in
 * early_receipts. Answers how many messages changed.
 */
export async function applyReceipts(db: Queryable, receipts: ReceiptInput[]): Promise<number> {
  if (receipts.length === 0) return 0;
  const { rows } = await db.query<{ changed: number }>(
    `WITH u AS (
       SELECT u.provider, u.pmid, u.status, u.error, u.at,
              coalesce(u.account_id, ref.account_id) AS account_id, coalesce(u.message_id, ref.message_id) AS id
       FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[], $6::uuid[], $7::uuid[])
         AS u(provider, pmid, status, error, at, account_id, message_id)
       LEFT JOIN provider_refs ref ON u.message_id IS NULL AND ref.provider = u.provider AND ref.ref = u.pmid
     ), cur AS (
       SELECT u.*, m.status AS current FROM u
       LEFT JOIN messages m ON m.account_id = u.account_id AND m.id = u.id AND m.outgoing
     ), upd AS (
       UPDATE messages m SET
         status = u.status,
         error = CASE WHEN u.status IN ('failed', 'undelivered') THEN coalesce(u.error, m.error) ELSE m.error END,
         sent_at = coalesce(m.sent_at, u.at),
         delivered_at = CASE WHEN u.status = 'delivered' THEN u.at ELSE m.delivered_at END,
         updated_at = now()
       FROM cur u
       WHERE m.account_id = u.account_id AND m.id = u.id AND u.current NOT IN ('queued', 'sending')
         AND sparrow_status_rank(u.status) > sparrow_status_rank(m.status)
       RETURNING m.*
     ), ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_REF} FROM upd m
       WHERE ${heardOnce('upd', 'm.account_id', "'message-status'")}
     ), early AS (
       INSERT INTO early_receipts (provider, provider_message_id, status, error, at, account_id, message_id)
       SELECT u.provider, u.pmid, u.status, u.error, u.at, u.account_id, u.id FROM cur u
       WHERE u.current IS NULL OR u.current IN ('queued', 'sending')
       ON CONFLICT DO NOTHING
     )
     SELECT count(*)::int AS changed FROM upd`,
    receiptColumns(receipts),
  );
  return rows[0].changed;
}

/** The seven column arrays of applyReceipts, built in one pass as array literals. */
function receiptColumns(receipts: ReceiptInput[]): string[] {
  const n = receipts.length;
  const provider = new Array<string>(n);
  const pmid = new Array<string>(n);
  const status = new Array<string>(n);
  const error = new Array<string | null>(n);
  const at = new Array<string>(n);
  const account = new Array<string | null>(n);
  const message = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const r = receipts[i];
    provider[i] = r.provider;
    pmid[i] = r.providerMessageId;
    status[i] = r.status;
    error[i] = r.error ? JSON.stringify(r.error) : null;
    at[i] = r.at.toISOString();
    account[i] = r.message?.accountId ?? null;
    message[i] = r.message?.id ?? null;
  }
  // Carrier ids and errors come from outside (and a message reference from a carrier callback): quoted.
  return [
    plainArray(provider),
    textArray(pmid),
    plainArray(status),
    textArray(error),
    plainArray(at),
    textArray(account),
    textArray(message),
  ];
}

/** Removes and answers the parked receipts whose submission is now recorded; drops those over an hour old. */
export async function takeEarlyReceipts(db: Queryable, limit = 5000): Promise<ReceiptInput[]> {
  await db.query(`DELETE FROM early_receipts WHERE received_at < now() - interval '1 hour'`);
  const { rows } = await db.query<{
    provider: string;
    provider_message_id: string;
    status: ReceiptInput['status'];
    error: ReceiptInput['error'];
    at: Date;
    account_id: string | null;
    message_id: string | null;
  }>(
    `DELETE FROM early_receipts e
     WHERE (e.provider, e.provider_message_id, e.status) IN (
       SELECT e2.provider, e2.provider_message_id, e2.status FROM early_receipts e2
       WHERE CASE WHEN e2.message_id IS NULL
                  THEN EXISTS (SELECT 1 FROM provider_refs r WHERE r.provider = e2.provider AND r.ref = e2.provider_message_id)
                  ELSE EXISTS (SELECT 1 FROM messages m WHERE m.account_id = e2.account_id AND m.id = e2.message_id
                                 AND m.status NOT IN ('queued', 'sending')) END
       LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING e.provider, e.provider_message_id, e.status, e.error, e.at, e.account_id, e.message_id`,
    [limit],
  );
  return rows.map((r) => ({
    provider: r.provider,
    providerMessageId: r.provider_message_id,
    message: r.message_id && r.account_id ? { accountId: r.account_id, id: r.message_id } : null,
    status: r.status,
    error: r.error,
    at: r.at,
  }));
}
