import type { Queryable } from '../client.ts';

/** A phone number row as stored. */
export interface PhoneNumberRow {
  account_id: string;
  id: string;
  number: string;
  country: string;
  type: string;
  name: string | null;
  provider: string;
  status: string;
  verified: boolean;
  universal_reply: boolean;
  hosted: boolean;
  supported_destinations: string[];
  forward_to: Record<string, unknown> | null;
  channels: Record<string, unknown>;
  throughput_mps: number;
  /** Messages a day (the account's day) it may hand to its carrier; null: no cap (migration 0420). */
  daily_cap: number | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

export async function insertPhoneNumber(
  db: Queryable,
  accountId: string,
  n: {
    id: string;
    number: string;
    country: string;
    type: string;
    provider: string;
    name?: string | null;
    throughputMps: number;
    channels: object;
    supportedDestinations: string[];
    by: object;
    /** Whether the provider confirmed the number is ours (see domain/numbers/verify-with-provider.ts). */
    verified?: boolean;
    dailyCap?: number | null;
  },
): Promise<PhoneNumberRow> {
  // daily_cap is named only when set (else the column's NULL): the migration tests insert numbers
  // with this code into schemas from before migration 0420.
  const capped = n.dailyCap != null;
  const { rows } = await db.query<PhoneNumberRow>(
    `INSERT INTO phone_numbers (account_id, id, number, country, type, provider, name, throughput_mps, channels,
                                supported_destinations, created_by, updated_by, verified${capped ? ', daily_cap' : ''})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12${capped ? ', $13' : ''}) RETURNING *`,
    [
      accountId,
      n.id,
      n.number,
      n.country,
      n.type,
      n.provider,
      n.name ?? null,
      n.throughputMps,
      n.channels,
      n.supportedDestinations,
      n.by,
      n.verified ?? true,
      ...(capped ? [n.dailyCap] : []),
    ],
  );
  return rows[0];
}

/** The numbers currently held by any account (not released). */
export async function takenNumbers(db: Queryable, candidates: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ number: string }>(
    `SELECT number FROM phone_numbers WHERE number = ANY($1) AND status <> 'released'`,
    [candidates],
  );
  return new Set(rows.map((r) => r.number));
}

/** Every active number of an account, oldest first. */
/** What a sender pool reads of a number. */
type PoolNumberFields = Pick<
  PhoneNumberRow,
  'id' | 'number' | 'provider' | 'throughput_mps' | 'verified' | 'country' | 'supported_destinations'
>;

export async function activeAccountNumbers(db: Queryable, accountId: string): Promise<PoolNumberFields[]> {
  const { rows } = await db.query<PoolNumberFields>(
    `SELECT id, number, provider, throughput_mps, verified, country, supported_destinations FROM phone_numbers
      WHERE account_id = $1 AND status = 'active' ORDER BY created_at, id`,
    [accountId],
  );
  return rows;
}

export async function getPhoneNumber(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<PhoneNumberRow | undefined> {
  const { rows } = await db.query<PhoneNumberRow>(
    'SELECT * FROM phone_numbers WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0];
}

/** A page of an account's numbers, oldest first; `released` chooses held (false) or released (true) ones. */
export async function listPhoneNumbers(
  db: Queryable,
  accountId: string,
  q: { released: boolean; offset: number; limit: number },
): Promise<{ rows: PhoneNumberRow[]; totalCount: number }> {
  const where = `account_id = $1 AND (status = 'released') = $2`;
  const [{ rows }, count] = await Promise.all([
    db.query<PhoneNumberRow>(
      `SELECT * FROM phone_numbers WHERE ${where} ORDER BY created_at, id OFFSET $3 LIMIT $4`,
      [accountId, q.released, q.offset, q.limit],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM phone_numbers WHERE ${where}`, [
      accountId,
      q.released,
    ]),
  ]);
  return { rows, totalCount: count.rows[0].n };
}

/** The held (not released) numbers of an account among the given ids and E.164 numbers. */
export async function findHeldNumbers(
  db: Queryable,
  accountId: string,
  ids: string[],
  numbers: string[],
): Promise<PhoneNumberRow[]> {
  const { rows } = await db.query<PhoneNumberRow>(
    `SELECT * FROM phone_numbers
      WHERE account_id = $1 AND status <> 'released' AND (id = ANY($2::uuid[]) OR number = ANY($3))`,
    [accountId, ids, numbers],
  );
  return rows;
}

export async function updatePhoneNumber(
  db: Queryable,
  accountId: string,
  id: string,
  u: {
    name: string | null;
    forwardTo: object | null;
    universalReply: boolean;
    channels: object;
    throughputMps: number;
    provider: string;
    dailyCap: number | null;
    by: object;
  },
): Promise<PhoneNumberRow | undefined> {
  const { rows } = await db.query<PhoneNumberRow>(
    `UPDATE phone_numbers
        SET name = $3, forward_to = $4, universal_reply = $5, channels = $6, throughput_mps = $7, provider = $8,
            daily_cap = $10, updated_at = now(), updated_by = $9
      WHERE account_id = $1 AND id = $2 AND status <> 'released' RETURNING *`,
    [
      accountId,
      id,
      u.name,
      u.forwardTo,
      u.universalReply,
      u.channels,
      u.throughputMps,
      u.provider,
      u.by,
      u.dailyCap,
    ],
  );
  return rows[0];
}

/** Marks a held number released (the number becomes free for anyone); answers the row, or undefined. */
export async function markReleased(
  db: Queryable,
  accountId: string,
  id: string,
  by: object,
): Promise<PhoneNumberRow | undefined> {
  const { rows } = await db.query<PhoneNumberRow>(
    `UPDATE phone_numbers SET status = 'released', updated_at = now(), updated_by = $3
      WHERE account_id = $1 AND id = $2 AND status <> 'released' RETURNING *`,
    [accountId, id, by],
  );
  return rows[0];
}

/** Whether messages from this number still wait to go out (queued or being handed to the provider). */
export async function hasPendingMessages(
  db: Queryable,
  accountId: string,
  phoneNumberId: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM messages
      WHERE queued AND account_id = $1 AND phone_number_id = $2 LIMIT 1`,
    [accountId, phoneNumberId],
  );
  return rows.length > 0;
}

/** Records what the provider answered about a number; answers the row, or undefined when not found. */
export async function setPhoneNumberVerified(
  db: Queryable,
  accountId: string,
  id: string,
  verified: boolean,
  by: object,
): Promise<PhoneNumberRow | undefined> {
  const { rows } = await db.query<PhoneNumberRow>(
    `UPDATE phone_numbers SET verified = $3, updated_at = now(), updated_by = $4
     WHERE account_id = $1 AND id = $2 AND status <> 'released' RETURNING *`,
    [accountId, id, verified, by],
  );
  return rows[0];
}

/** A number as the published phone-number object of a Conversation (sparrow_phone_number_ref, migration 0210). */
export async function phoneNumberRef(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<Record<string, unknown> | null> {
  const { rows } = await db.query<{ ref: Record<string, unknown> | null }>(
    'SELECT sparrow_phone_number_ref($1, $2) AS ref',
    [accountId, id],
  );
  return rows[0]?.ref ?? null;
}

/** The held (not released) row of a number, whichever account holds it (a number is held once). */
export async function heldNumber(db: Queryable, number: string): Promise<PhoneNumberRow | undefined> {
  const { rows } = await db.query<PhoneNumberRow>(
    `SELECT * FROM phone_numbers WHERE number = $1 AND status <> 'released'`,
    [number],
  );
  return rows[0];
}
