import { randomUUID } from 'node:crypto';
import type { Queryable } from '../client.ts';
import { claimDue, type QueueSpec } from './claim.ts';

/** An SMPP credential as stored (the password only as its hash). */
export interface SmppCredentialRow {
  account_id: string;
  id: string;
  system_id: string;
  password_hash: string;
  name: string;
  throughput_mps: number;
  created_at: Date;
  created_by: Record<string, unknown>;
  /** When it was revoked (it binds no more), and why (`creator-removed`). */
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export async function insertSmppCredential(
  db: Queryable,
  accountId: string,
  c: { id: string; systemId: string; passwordHash: string; name: string; throughputMps: number; by: object },
): Promise<SmppCredentialRow> {
  const { rows } = await db.query<SmppCredentialRow>(
    `INSERT INTO smpp_credentials (account_id, id, system_id, password_hash, name, throughput_mps, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [accountId, c.id, c.systemId, c.passwordHash, c.name, c.throughputMps, JSON.stringify(c.by)],
  );
  return rows[0];
}

export async function listSmppCredentials(
  db: Queryable,
  accountId: string,
  offset: number,
  limit: number,
): Promise<{ rows: SmppCredentialRow[]; total: number }> {
  const [{ rows }, count] = await Promise.all([
    db.query<SmppCredentialRow>(
      `SELECT * FROM smpp_credentials WHERE account_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3`,
      [accountId, offset, limit],
    ),
    db.query<{ n: string }>('SELECT count(*) AS n FROM smpp_credentials WHERE account_id = $1', [accountId]),
  ]);
  return { rows, total: Number(count.rows[0].n) };
}

export async function getSmppCredential(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<SmppCredentialRow | undefined> {
  const { rows } = await db.query<SmppCredentialRow>(
    'SELECT * FROM smpp_credentials WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0];
}

export async function deleteSmppCredential(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM smpp_credentials WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * Revokes the account's unrevoked credentials created by this console user or by one of these API
 * clients (whose holder saw the password answered at creation); answers them, oldest first.
 */
export async function revokeSmppCredentialsMadeBy(
  db: Queryable,
  accountId: string,
  by: { userId: string; clientIds: string[] },
  reason: string,
): Promise<SmppCredentialRow[]> {
  const { rows } = await db.query<SmppCredentialRow>(
    `UPDATE smpp_credentials SET revoked_at = now(), revoked_reason = $4
      WHERE account_id = $1 AND revoked_at IS NULL
        AND ((created_by ->> 'source' = 'console' AND created_by ->> 'id' = $2)
          OR (created_by ->> 'source' = 'api' AND created_by ->> 'id' = ANY ($3::text[])))
      RETURNING *`,
    [accountId, by.userId, by.clientIds, reason],
  );
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
}

/** Looks a credential up by its system_id alone: a bind names no account. */
export async function findSmppCredentialBySystemId(
  db: Queryable,
  systemId: string,
): Promise<SmppCredentialRow | undefined> {
  // A revoked credential binds no more: it is as if unknown.
  const { rows } = await db.query<SmppCredentialRow>(
    'SELECT * FROM smpp_credentials WHERE system_id = $1 AND revoked_at IS NULL',
    [systemId],
  );
  return rows[0];
}

/**
 * Of these credential ids, the ones that still exist unrevoked (a deleted or revoked credential's
 * binds are closed).
 */
export async function existingSmppCredentialIds(db: Queryable, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM smpp_credentials WHERE id = ANY ($1::uuid[]) AND revoked_at IS NULL',
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Records which ids an ESME was answered for a message and which receipts it wants. */
export async function insertSmppSubmissions(
  db: Queryable,
  accountId: string,
  rows: { messageId: string; credentialId: string; smppIds: string[]; receiptMask: number }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(smppSubmissionsSql('$1', '$2'), [accountId, smppSubmissionsJson(rows)]);
}

/** The INSERT of insertSmppSubmissions: `account` a SQL expression, `json` one of smppSubmissionsJson. */
export const smppSubmissionsSql = (account: string, json: string) =>
  `INSERT INTO smpp_submissions (account_id, message_id, credential_id, smpp_ids, receipt_mask)
     SELECT ${account}, r.message_id, r.credential_id, r.smpp_ids, r.receipt_mask
       FROM jsonb_to_recordset(${json}::jsonb)
         AS r(message_id uuid, credential_id uuid, smpp_ids text[], receipt_mask smallint)`;

/** Submissions as the JSON parameter of smppSubmissionsSql. */
export function smppSubmissionsJson(
  rows: { messageId: string; credentialId: string; smppIds: string[]; receiptMask: number }[],
): string {
  return JSON.stringify(
    rows.map((r) => ({
      message_id: r.messageId,
      credential_id: r.credentialId,
      smpp_ids: r.smppIds,
      receipt_mask: r.receiptMask,
    })),
  );
}

/**
 * Queues receipts for messages of a send that are final already (refused in the send's own
 * transaction, before the submission row existed for the event trigger to find).
 */
export async function enqueueFinalReceipts(
  db: Queryable,
  accountId: string,
  messageIds: string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await db.query(
    `INSERT INTO smpp_outbox (account_id, id, kind, message_id, credential_id, status, error)
     SELECT m.account_id, sparrow_uuidv7(), 'receipt', m.id, s.credential_id, m.status, m.error
       FROM messages m
       JOIN smpp_submissions s ON s.account_id = m.account_id AND s.message_id = m.id
      WHERE m.account_id = $1 AND m.id = ANY ($2::uuid[])
        AND m.status IN ('delivered', 'undelivered', 'failed')
        AND (s.receipt_mask = 1 OR (s.receipt_mask = 2 AND m.status <> 'delivered'))`,
    [accountId, messageIds],
  );
}

/** A deliver_sm to make: a receipt or an inbound text, with what its PDU needs. */
export interface SmppOutboxItem {
  account_id: string;
  id: string;
  kind: 'receipt' | 'inbound';
  credential_id: string | null;
  status: string | null;
  error: { code?: string; description?: string } | null;
  smpp_ids: string[] | null;
  from_number: string | null;
  to_number: string | null;
  body: string;
  message_created_at: Date;
}

/** The deliver_sm waiting for a receiver bind, oldest first, leased while a server sends them. */
const SMPP_OUTBOX_QUEUE: QueueSpec = {
  table: 'smpp_outbox',
  key: ['account_id', 'id'],
  due: 'true',
  order: 'q.id',
  lease: { until: 'claimed_until', token: 'claim_token' },
};

/**
 * Claims up to `limit` waiting deliver_sm of these accounts for `leaseSeconds` (another process,
 * or this one after a failure, takes them again once the lease is over).
 */
export async function claimSmppOutbox(
  db: Queryable,
  accountIds: string[],
  limit: number,
  leaseSeconds: number,
): Promise<SmppOutboxItem[]> {
  if (accountIds.length === 0) return [];
  return claimDue<SmppOutboxItem>(db, SMPP_OUTBOX_QUEUE, limit, leaseSeconds, randomUUID(), {
    where: 'q.account_id = ANY ($4::uuid[])',
    select: `SELECT c.account_id, c.id, c.kind, c.credential_id, c.status, c.error, s.smpp_ids,
            m.from_number, m.to_number, m.body, m.created_at AS message_created_at
       FROM claimed c
       JOIN messages m ON m.account_id = c.account_id AND m.id = c.message_id
       LEFT JOIN smpp_submissions s ON s.account_id = c.account_id AND s.message_id = c.message_id
      ORDER BY c.id`,
    params: [accountIds],
  });
}

/** Removes deliver_sm that were acknowledged (or refused for good). */
export async function deleteSmppOutbox(
  db: Queryable,
  items: { account_id: string; id: string }[],
): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `DELETE FROM smpp_outbox o USING jsonb_to_recordset($1::jsonb) AS r(account_id uuid, id uuid)
      WHERE o.account_id = r.account_id AND o.id = r.id`,
    [JSON.stringify(items.map((i) => ({ account_id: i.account_id, id: i.id })))],
  );
}

/** Drops deliver_sm no receiver took within `hours`, and submission records as old. */
export async function expireSmppOutbox(db: Queryable, hours: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM smpp_outbox WHERE created_at < now() - make_interval(hours => $1)`,
    [hours],
  );
  await db.query(`DELETE FROM smpp_submissions WHERE created_at < now() - make_interval(hours => $1 * 4)`, [
    hours,
  ]);
  return rowCount ?? 0;
}

/** An outgoing message's state for query_sm: by its id, in the account. */
export async function smppMessageState(
  db: Queryable,
  accountId: string,
  messageId: string,
): Promise<{ status: string; updated_at: Date } | undefined> {
  const { rows } = await db.query<{ status: string; updated_at: Date }>(
    'SELECT status, updated_at FROM messages WHERE account_id = $1 AND id = $2 AND outgoing',
    [accountId, messageId],
  );
  return rows[0];
}
