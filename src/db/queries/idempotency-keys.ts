import type { Queryable } from '../client.ts';

/** How long an Idempotency-Key and its stored answer are kept. */
export const IDEMPOTENCY_TTL_HOURS = 24;

/** A stored Idempotency-Key and, once complete, the response it produced. */
export interface IdempotencyRow {
  account_id: string;
  client_id: string;
  key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  response_type: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/**
 * Claims a key for a request; answers undefined when it was claimed, else the existing row.
 * A row older than 24 h is replaced: keys are kept for a day.
 */
export async function claimKey(
  db: Queryable,
  accountId: string,
  k: { clientId: string; key: string; method: string; path: string; hash: string },
): Promise<IdempotencyRow | undefined> {
  const { rows } = await db.query<IdempotencyRow & { claimed: boolean }>(
    `WITH ins AS (
       INSERT INTO idempotency_keys (account_id, client_id, key, method, path, request_hash)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (client_id, key) DO UPDATE
         SET account_id = EXCLUDED.account_id, method = EXCLUDED.method, path = EXCLUDED.path,
             request_hash = EXCLUDED.request_hash, status_code = NULL, response_body = NULL,
             response_type = NULL, created_at = now(), completed_at = NULL
         WHERE idempotency_keys.created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'
       RETURNING *, true AS claimed)
     SELECT * FROM ins
     UNION ALL
     SELECT *, false AS claimed FROM idempotency_keys WHERE client_id = $2 AND key = $3 AND NOT EXISTS (SELECT 1 FROM ins)`,
    [accountId, k.clientId, k.key, k.method, k.path, k.hash],
  );
  const row = rows[0];
  return row?.claimed ? undefined : row;
}

export async function completeKey(
  db: Queryable,
  accountId: string,
  k: { clientId: string; key: string; status: number; body: string; type: string },
) {
  await db.query(
    `UPDATE idempotency_keys SET status_code = $4, response_body = $5, response_type = $6, completed_at = now()
     WHERE account_id = $1 AND client_id = $2 AND key = $3`,
    [accountId, k.clientId, k.key, k.status, k.body, k.type],
  );
}

export async function releaseKey(db: Queryable, accountId: string, clientId: string, key: string) {
  await db.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND client_id = $2 AND key = $3', [
    accountId,
    clientId,
    key,
  ]);
}

export async function purgeExpiredKeys(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE created_at < now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`,
  );
  return rowCount ?? 0;
}
