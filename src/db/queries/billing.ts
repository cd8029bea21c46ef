import type { Queryable } from '../client.ts';

/** The plan and billing details a checkout collects and a billing profile keeps. */
export interface BillingDetailsRow {
  plan: string;
  commitment: number;
  frequency: string;
  name: string;
  email: string;
  address: Record<string, unknown> | null;
  tax: Record<string, unknown> | null;
  segment_understanding: boolean | null;
}

/** A checkout session as stored. */
export interface CheckoutSessionRow extends BillingDetailsRow {
  account_id: string;
  id: string;
  provider: 'simulator' | 'stripe';
  provider_session_id: string | null;
  url: string | null;
  amount: number;
  currency: string;
  success_url: string;
  cancel_url: string;
  status: 'open' | 'completed' | 'canceled';
  completed_at: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
}

/** What a new checkout session stores. */
export interface NewCheckoutSession {
  id: string;
  provider: string;
  providerSessionId: string;
  url: string;
  plan: string;
  commitment: number;
  frequency: string;
  name: string;
  email: string;
  address: object | null;
  tax: object | null;
  segmentUnderstanding: boolean | null;
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
  by: object;
}

export async function insertCheckoutSession(db: Queryable, accountId: string, s: NewCheckoutSession) {
  await db.query(
    `INSERT INTO checkout_sessions (account_id, id, provider, provider_session_id, url, plan, commitment, frequency,
                                    name, email, address, tax, segment_understanding, amount, currency,
                                    success_url, cancel_url, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      accountId,
      s.id,
      s.provider,
      s.providerSessionId,
      s.url,
      s.plan,
      s.commitment,
      s.frequency,
      s.name,
      s.email,
      s.address,
      s.tax,
      s.segmentUnderstanding,
      s.amount,
      s.currency,
      s.successUrl,
      s.cancelUrl,
      s.by,
    ],
  );
}

/** The account's session by the provider's session id; `lock` holds it until the transaction ends. */
export async function findCheckoutSession(
  db: Queryable,
  accountId: string,
  provider: string,
  providerSessionId: string,
  lock = false,
): Promise<CheckoutSessionRow | undefined> {
  const { rows } = await db.query<CheckoutSessionRow>(
    `SELECT * FROM checkout_sessions WHERE account_id = $1 AND provider = $2 AND provider_session_id = $3
     ${lock ? 'FOR UPDATE' : ''}`,
    [accountId, provider, providerSessionId],
  );
  return rows[0];
}

/** Closes an open session as completed or canceled; answers false when it was not open. */
export async function closeCheckoutSession(
  db: Queryable,
  accountId: string,
  id: string,
  status: 'completed' | 'canceled',
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE checkout_sessions SET status = $3, completed_at = CASE WHEN $3 = 'completed' THEN now() END
      WHERE account_id = $1 AND id = $2 AND status = 'open'`,
    [accountId, id, status],
  );
  return (rowCount ?? 0) > 0;
}

/** The billing profile: plan, details and the payment method a checkout saved. */
export interface BillingProfileRow extends BillingDetailsRow {
  account_id: string;
  provider: 'simulator' | 'stripe';
  customer_id: string | null;
  payment_method_id: string | null;
  checkout_session_id: string;
  updated_at: Date;
}

/** Records a completed checkout's plan, details and payment method as the account's billing profile. */
export async function saveBillingProfile(
  db: Queryable,
  accountId: string,
  s: CheckoutSessionRow,
  payment: { customerId: string | null; paymentMethodId: string | null },
) {
  await db.query(
    `INSERT INTO billing_profiles (account_id, plan, commitment, frequency, name, email, address, tax,
                                   segment_understanding, provider, customer_id, payment_method_id, checkout_session_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (account_id) DO UPDATE SET plan = $2, commitment = $3, frequency = $4, name = $5, email = $6,
       address = $7, tax = $8, segment_understanding = $9, provider = $10,
       customer_id = coalesce($11, billing_profiles.customer_id),
       payment_method_id = coalesce($12, billing_profiles.payment_method_id),
       checkout_session_id = $13, updated_at = now()`,
    [
      accountId,
      s.plan,
      s.commitment,
      s.frequency,
      s.name,
      s.email,
      s.address,
      s.tax,
      s.segment_understanding,
      s.provider,
      payment.customerId,
      payment.paymentMethodId,
      s.id,
    ],
  );
}

export async function findBillingProfile(
  db: Queryable,
  accountId: string,
): Promise<BillingProfileRow | undefined> {
  const { rows } = await db.query<BillingProfileRow>('SELECT * FROM billing_profiles WHERE account_id = $1', [
    accountId,
  ]);
  return rows[0];
}

/** Moves the account to a paid plan (out of trial; a suspended account stays suspended). */
export async function setPaidPlan(db: Queryable, accountId: string, plan: string, by: object) {
  await db.query(
    `UPDATE accounts SET plan = $2, status = CASE WHEN status = 'suspended' THEN status ELSE 'paid' END,
            updated_at = now(), updated_by = $3
      WHERE id = $1`,
    [accountId, plan, by],
  );
}

/**
 * Records a credit in the ledger, once per (type, reference): answers false when that reference was
 * already credited (the caller's transaction must then roll its credit back).
 */
export async function insertCredit(
  db: Queryable,
  accountId: string,
  t: {
    id: string;
    type: 'checkout' | 'topup';
    amount: number;
    balanceAfter: number;
    referenceId: string;
    description: string;
    by: object;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO billing_transactions (account_id, id, type, amount, balance_after, reference_id, description, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (account_id, type, reference_id) DO NOTHING`,
    [accountId, t.id, t.type, t.amount, t.balanceAfter, t.referenceId, t.description, t.by],
  );
  return (rowCount ?? 0) > 0;
}

/** One entry of the account's money movements: a credit (checkout, top-up) or a charged send. */
export interface TransactionRow {
  id: string;
  type: 'checkout' | 'topup' | 'send' | 'message';
  amount: number;
  balance_after: number | null;
  reference_id: string;
  description: string;
  created_at: Date;
  created_by: Record<string, unknown>;
}

// Credits from the ledger; debits from what sends charged (a job's price is net of refunds for
// messages that failed; a message outside a job is charged on its own).
const TRANSACTIONS = `
  SELECT id, type, amount, balance_after, reference_id, description, created_at, created_by
    FROM billing_transactions WHERE account_id = $1
  UNION ALL
  SELECT id, 'send', -price, NULL, id, 'Send of ' || submitted || ' message(s)', created_at, created_by
    -- A scheduled send's price is an estimate until it runs (and never charged if cancelled or failed).
    FROM send_jobs WHERE account_id = $1 AND price > 0 AND status NOT IN ('scheduled', 'cancelled', 'failed')
  UNION ALL
  SELECT id, 'message', -price, NULL, id, 'Message to ' || coalesce(to_number, 'a contact'), created_at, created_by
    FROM messages WHERE account_id = $1 AND job_id IS NULL AND outgoing AND price > 0`;

/** One page of the account's credits and debits, newest first, optionally of some types, with the total. */
export async function listTransactions(
  db: Queryable,
  accountId: string,
  types: string[] | undefined,
  page: { offset: number; limit: number },
): Promise<{ rows: TransactionRow[]; total: number }> {
  const where = types ? 'WHERE t.type = ANY($2::text[])' : '';
  const params: unknown[] = types ? [accountId, types] : [accountId];
  const [items, count] = await Promise.all([
    db.query<TransactionRow>(
      `SELECT * FROM (${TRANSACTIONS}) t ${where} ORDER BY created_at DESC, id DESC
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${TRANSACTIONS}) t ${where}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
