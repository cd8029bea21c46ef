import type { Queryable } from '../client.ts';
import { lockDueSql, type QueueSpec } from './claim.ts';

/** Auto top-up settings as stored. */
export interface AutoTopupRow {
  account_id: string;
  enabled: boolean;
  threshold: number;
  amount: number;
  max_per_month: number;
  armed: boolean;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** A top-up as stored. */
export interface TopupRow {
  account_id: string;
  id: string;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
  idempotency_key: string;
  attempts: number;
  next_attempt_at: Date;
  claimed_until: Date | null;
  claim_token: string | null;
  provider_payment_id: string | null;
  error: { code: string; description: string } | null;
  balance_before: number | null;
  created_at: Date;
  completed_at: Date | null;
}

export async function findAutoTopup(db: Queryable, accountId: string): Promise<AutoTopupRow | undefined> {
  const { rows } = await db.query<AutoTopupRow>('SELECT * FROM auto_topups WHERE account_id = $1', [
    accountId,
  ]);
  return rows[0];
}

/** Enables auto top-up with these settings (armed: the next dip below the threshold tops up). */
export async function saveAutoTopup(
  db: Queryable,
  accountId: string,
  s: { threshold: number; amount: number; maxPerMonth: number; by: object },
): Promise<AutoTopupRow> {
  const { rows } = await db.query<AutoTopupRow>(
    `INSERT INTO auto_topups (account_id, threshold, amount, max_per_month, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (account_id) DO UPDATE SET enabled = true, armed = true, threshold = $2, amount = $3,
       max_per_month = $4, updated_at = now(), updated_by = $5
     RETURNING *`,
    [accountId, s.threshold, s.amount, s.maxPerMonth, s.by],
  );
  return rows[0];
}

/** Disables auto top-up (the settings stay for a later PUT); a top-up already under way finishes. */
export async function disableAutoTopup(db: Queryable, accountId: string, by: object): Promise<void> {
  await db.query(
    'UPDATE auto_topups SET enabled = false, updated_at = now(), updated_by = $2 WHERE account_id = $1',
    [accountId, by],
  );
}

/** The account's most recent top-ups, newest first. */
export async function recentTopups(db: Queryable, accountId: string, limit: number): Promise<TopupRow[]> {
  const { rows } = await db.query<TopupRow>(
    'SELECT * FROM topups WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
    [accountId, limit],
  );
  return rows;
}

// Top-ups that count against max_per_month: this calendar month's (UTC), unless they failed.
const THIS_MONTH = `t.status <> 'failed' AND t.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/** How many top-ups of the account count against this month's maximum. */
export async function topupsThisMonth(db: Queryable, accountId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM topups t WHERE t.account_id = $1 AND ${THIS_MONTH}`,
    [accountId],
  );
  return rows[0].n;
}

/** Enabled, armed auto top-up settings (one top-up per dip), locked while a top-up is started. */
const ARMED_SETTINGS: QueueSpec = {
  table: 'auto_topups',
  key: ['account_id'],
  due: 'q.enabled AND q.armed',
  order: 'q.account_id',
};

/**
 * Worker step across accounts: re-arms settings whose balance is back at or above the threshold, and
 * for up to `limit` enabled, armed accounts whose balance fell below it (with a saved payment method
 * and this month's maximum not reached) creates one pending top-up and disarms them: one top-up per
 * dip. Settings rows are locked with SKIP LOCKED, and at most one top-up per account is pending.
 * Answers the accounts that got a top-up.
 */
export async function startDueTopups(db: Queryable, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ account_id: string }>(
    `WITH rearm AS (
       UPDATE auto_topups s SET armed = true
         FROM accounts a
        WHERE a.id = s.account_id AND s.enabled AND NOT s.armed AND a.balance >= s.threshold
          AND NOT EXISTS (SELECT 1 FROM topups t WHERE t.account_id = s.account_id AND t.status = 'pending')
     ), due AS (${lockDueSql(ARMED_SETTINGS, {
       columns: 'q.account_id, q.amount, a.currency, a.balance',
       join: 'JOIN accounts a ON a.id = q.account_id',
       where: `a.balance < q.threshold
          AND EXISTS (SELECT 1 FROM billing_profiles p
                       WHERE p.account_id = q.account_id AND p.payment_method_id IS NOT NULL)
          AND (SELECT count(*) FROM topups t WHERE t.account_id = q.account_id AND ${THIS_MONTH}) < q.max_per_month`,
       limit: '$1',
     })}), disarm AS (
       UPDATE auto_topups s SET armed = false FROM due WHERE s.account_id = due.account_id
     ), fresh AS (
       SELECT due.*, sparrow_uuidv7() AS id FROM due
     )
     INSERT INTO topups (account_id, id, amount, currency, idempotency_key, balance_before)
     SELECT account_id, id, amount, currency, 'sparrow-topup-' || id, balance FROM fresh
     ON CONFLICT DO NOTHING
     RETURNING account_id`,
    [limit],
  );
  return rows.map((r) => r.account_id);
}

/** A claimed top-up with the payment method to charge. */
export type ClaimedTopup = TopupRow & {
  provider: string | null;
  customer_id: string | null;
  payment_method_id: string | null;
};

/**
 * The queue of pending top-ups to charge, leased with a claim token; every claim counts an
 * attempt (the charge's own outcomes are recorded by markTopupSucceeded / markTopupAttemptFailed).
 */
export const TOPUP_QUEUE: QueueSpec = {
  table: 'topups',
  key: ['account_id', 'id'],
  due: `q.status = 'pending' AND q.next_attempt_at <= now()`,
  order: 'q.next_attempt_at',
  lease: { until: 'claimed_until', token: 'claim_token' },
  attempts: 'attempts',
  retryAt: 'next_attempt_at',
};

/** What a top-up claim answers: the row and its account's payment method. */
export const TOPUP_CLAIM_RETURNING = `t.*, (SELECT p.provider FROM billing_profiles p WHERE p.account_id = t.account_id),
  (SELECT p.customer_id FROM billing_profiles p WHERE p.account_id = t.account_id),
  (SELECT p.payment_method_id FROM billing_profiles p WHERE p.account_id = t.account_id)`;

/** Marks a pending top-up succeeded; answers false when it was no longer pending (already settled). */
export async function markTopupSucceeded(
  db: Queryable,
  accountId: string,
  id: string,
  paymentId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE topups SET status = 'succeeded', provider_payment_id = $3, error = NULL, claimed_until = NULL,
            claim_token = NULL, completed_at = now()
      WHERE account_id = $1 AND id = $2 AND status = 'pending'`,
    [accountId, id, paymentId],
  );
  return (rowCount ?? 0) > 0;
}

/** Records a failed attempt: retried at `retryAt`, or failed for good when retryAt is null. */
export async function markTopupAttemptFailed(
  db: Queryable,
  accountId: string,
  id: string,
  error: { code: string; description: string },
  retryAt: Date | null,
): Promise<void> {
  await db.query(
    `UPDATE topups SET error = $3, claimed_until = NULL, claim_token = NULL,
            status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE status END,
            next_attempt_at = coalesce($4::timestamptz, next_attempt_at),
            completed_at = CASE WHEN $4::timestamptz IS NULL THEN now() END
      WHERE account_id = $1 AND id = $2 AND status = 'pending'`,
    [accountId, id, error, retryAt],
  );
}
