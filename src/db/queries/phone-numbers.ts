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
  },
): Promise<PhoneNumberRow> {
  const { rows } = await db.query<PhoneNumberRow>(
    `INSERT INTO phone_numbers (account_id, id, number, country, type, provider, name, throughput_mps, channels,
                                supported_destinations, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
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
