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
  /** The HELP reply; null: the default wording (domain/accounts/keyword-replies.ts). */
  help_text: string | null;
  /** The STOP confirmation; null: the default wording (migration 0410). */
  opt_out_text: string | null;
  /** The START confirmation; null: the default wording (migration 0410). */
  opt_in_text: string | null;
  settings: Record<string, unknown>;
  /** Smart encoding of sent texts (docs/encoding.md); on by default. */
  smart_encoding: boolean;
  /** Default validity period of the account's messages, in seconds; null: none. */
  validity_period: number | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
  /** The account's share of the dispatcher against the others' (1..100; migration 0375). */
  dispatch_weight: number;
}

/** Sets the account's dispatch weight (the operator's: `sparrow accounts weight`); false: no such account. */
export async function setDispatchWeight(db: Queryable, accountId: string, weight: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE accounts SET dispatch_weight = $2 WHERE id = $1', [
    accountId,
    weight,
  ]);
  return (rowCount ?? 0) > 0;
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

/** How the account's texts are sent: smart encoding and the default validity period. */
export interface SendingSettings {
  smart_encoding: boolean;
  validity_period: number | null;
}

/** The sending settings of an account (undefined: no such account). */
export async function sendingSettings(
  db: Queryable,
  accountId: string,
): Promise<SendingSettings | undefined> {
  const { rows } = await db.query<SendingSettings>({
    name: 'account-sending-settings',
    text: 'SELECT smart_encoding, validity_period FROM accounts WHERE id = $1',
    values: [accountId],
  });
  return rows[0];
}

/** An account's number `pn` that it can send from: active and verified (a number not released is unique). */
const SENDABLE = (pn: string, account: string, number: string) =>
  `${pn}.account_id = ${account} AND ${pn}.number = ${number} AND ${pn}.status = 'active' AND ${pn}.verified`;

/** An account's number that it sends from. */
export interface Sender {
  id: string;
  number: string;
}

/** Sending settings as an SMPP relay read them, with the number they send from (null: not sendable). */
export type SendingSettingsFrom = SendingSettings & { sender: Sender | null };

/**
 * The sending settings of an account and its active, verified number `source` (null: none such), in
 * one round trip: what an SMPP batch reads before its transaction (undefined: no such account).
 */
export async function sendingSettingsFrom(
  db: Queryable,
  accountId: string,
  source: string,
): Promise<SendingSettingsFrom | undefined> {
  const { rows } = await db.query<SendingSettings & { sender_id: string | null }>({
    name: 'account-sending-settings-from',
    text: `SELECT a.smart_encoding, a.validity_period, pn.id AS sender_id
             FROM accounts a
             LEFT JOIN phone_numbers pn ON ${SENDABLE('pn', 'a.id', '$2')}
            WHERE a.id = $1`,
    values: [accountId, source],
  });
  const r = rows[0];
  if (!r) return undefined;
  return {
    smart_encoding: r.smart_encoding,
    validity_period: r.validity_period,
    sender: r.sender_id ? { id: r.sender_id, number: source } : null,
  };
}

/**
 * SQL true while the account's sending settings and its number are still what sendingSettingsFrom
 * read (`settings`, with a sender): the condition an SMPP relay's later batch is written under
 * instead of reading them again. Each argument is SQL (a parameter).
 */
export function sendingSettingsStillSql(v: {
  account: string;
  smartEncoding: string;
  validity: string;
  senderId: string;
  number: string;
}): string {
  return `EXISTS (SELECT 1 FROM accounts a JOIN phone_numbers pn ON ${SENDABLE('pn', 'a.id', `${v.number}::text`)}
                   WHERE a.id = ${v.account} AND pn.id = ${v.senderId}::uuid AND a.smart_encoding = ${v.smartEncoding}::boolean
                     AND a.validity_period IS NOT DISTINCT FROM ${v.validity}::int)`;
}

/** Changes the given sending settings (null validity: none); answers the account, undefined when unknown. */
export async function updateSendingSettings(
  db: Queryable,
  accountId: string,
  s: {
    smartEncoding?: boolean;
    validityPeriod?: number | null;
    name?: string;
    timezone?: string;
    /** The keyword replies to change (null: back to the default wording); absent ones stay. */
    replies?: { optOut?: string | null; optIn?: string | null; help?: string | null };
  },
  by: object,
): Promise<AccountRow | undefined> {
  const r = s.replies ?? {};
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET
       smart_encoding = CASE WHEN $2 THEN $3::boolean ELSE smart_encoding END,
       validity_period = CASE WHEN $4 THEN $5::integer ELSE validity_period END,
       name = coalesce($7::text, name),
       timezone = coalesce($8::text, timezone),
       opt_out_text = CASE WHEN $9 THEN $10::text ELSE opt_out_text END,
       opt_in_text = CASE WHEN $11 THEN $12::text ELSE opt_in_text END,
       help_text = CASE WHEN $13 THEN $14::text ELSE help_text END,
       updated_at = now(), updated_by = $6
     WHERE id = $1 RETURNING *`,
    [
      accountId,
      s.smartEncoding !== undefined,
      s.smartEncoding ?? null,
      s.validityPeriod !== undefined,
      s.validityPeriod ?? null,
      by,
      s.name ?? null,
      s.timezone ?? null,
      r.optOut !== undefined,
      r.optOut ?? null,
      r.optIn !== undefined,
      r.optIn ?? null,
      r.help !== undefined,
      r.help ?? null,
    ],
  );
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
