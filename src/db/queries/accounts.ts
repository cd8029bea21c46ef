import type { Queryable } from '../client.ts';

/** An account row as stored. */
export interface AccountRow {
  id: string;
  name: string;
  plan: string;
  status: string;
  timezone: string;
  currency: string;
  balance: number;
  help_text: string | null;
  settings: Record<string, unknown>;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

export async function insertAccount(
  db: Queryable,
  a: { id: string; name: string; timezone: string; balance: number; createdBy: object },
): Promise<AccountRow> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts (id, name, timezone, balance, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $5) RETURNING *`,
    [a.id, a.name, a.timezone, a.balance, a.createdBy],
  );
  return rows[0];
}

export async function findAccount(db: Queryable, accountId: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>({
    name: 'find-account',
    text: 'SELECT * FROM accounts WHERE id = $1',
    values: [accountId],
  });
  return rows[0];
}

/** Adds (or, with a negative amount, removes) credit; answers the new balance. */
export async function adjustBalance(
  db: Queryable,
  accountId: string,
  amount: number,
): Promise<number | undefined> {
  const { rows } = await db.query<{ balance: number }>(
    'UPDATE accounts SET balance = balance + $2, updated_at = now() WHERE id = $1 RETURNING balance',
    [accountId, amount],
  );
  return rows[0]?.balance;
}

/** Whether the database holds any account at all (a first start creates the development account). */
export async function anyAccountExists(db: Queryable): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM accounts LIMIT 1');
  return (rowCount ?? 0) > 0;
}

/** A trivial round trip: readiness of the database. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
