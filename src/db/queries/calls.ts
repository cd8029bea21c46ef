import type { Queryable } from '../client.ts';

/** A call's status; the order of CALL_STATUS_RANK is the only direction it moves in. */
export type CallStatus =
  | 'initiated'
  | 'ringing'
  | 'in-progress'
  | 'completed'
  | 'busy'
  | 'no-answer'
  | 'failed'
  | 'canceled';

/** What we told the carrier to do with a call. */
export type CallAction = 'forward' | 'voicemail' | 'reject';

/** A call row as stored. */
export interface CallRow {
  account_id: string;
  id: string;
  direction: 'inbound' | 'outbound';
  status: CallStatus;
  contact_id: string | null;
  phone_number_id: string | null;
  group_id: string | null;
  from_number: string;
  to_number: string;
  provider: string;
  provider_call_id: string;
  action: CallAction;
  forwarded_to: string | null;
  duration: number;
  voicemail: boolean;
  recording: boolean;
  recording_url: string | null;
  recording_duration: number | null;
  transcription: string | null;
  ended_at: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
}

/**
 * Inserts a call unless the account already has one with this provider call id (a carrier's
 * retried webhook); answers the stored row and whether this call inserted it.
 */
export async function insertCallIfAbsent(
  db: Queryable,
  accountId: string,
  c: {
    id: string;
    contactId: string | null;
    phoneNumberId: string;
    groupId: string | null;
    from: string;
    to: string;
    provider: string;
    providerCallId: string;
    action: CallAction;
    forwardedTo: string | null;
    by: object;
  },
): Promise<{ row: CallRow; created: boolean }> {
  const { rows } = await db.query<CallRow>(
    `INSERT INTO calls (account_id, id, contact_id, phone_number_id, group_id, from_number, to_number, provider,
                        provider_call_id, action, forwarded_to, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (account_id, provider, provider_call_id) DO NOTHING RETURNING *`,
    [
      accountId,
      c.id,
      c.contactId,
      c.phoneNumberId,
      c.groupId,
      c.from,
      c.to,
      c.provider,
      c.providerCallId,
      c.action,
      c.forwardedTo,
      c.by,
    ],
  );
  if (rows[0]) return { row: rows[0], created: true };
  const existing = await findCallByProviderId(db, accountId, c.provider, c.providerCallId);
  if (!existing) throw new Error(`call ${c.providerCallId} vanished during insert`);
  return { row: existing, created: false };
}

export async function findCall(db: Queryable, accountId: string, id: string): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>('SELECT * FROM calls WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return rows[0];
}

/** The account's call with this carrier call id (e.g. Twilio's CallSid). */
export async function findCallByProviderId(
  db: Queryable,
  accountId: string,
  provider: string,
  providerCallId: string,
): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>(
    'SELECT * FROM calls WHERE account_id = $1 AND provider = $2 AND provider_call_id = $3',
    [accountId, provider, providerCallId],
  );
  return rows[0];
}

// SQL rank of a status: a status update applies only when it ranks above the stored one.
const RANK = (col: string) =>
  `CASE ${col} WHEN 'initiated' THEN 0 WHEN 'ringing' THEN 1 WHEN 'in-progress' THEN 2 ELSE 3 END`;

/**
 * Moves a call forward to `status` (never backwards; a terminal status is final) and records the
 * duration when given. Answers the row when it moved, undefined when the update changed nothing.
 */
export async function advanceCallStatus(
  db: Queryable,
  accountId: string,
  provider: string,
  providerCallId: string,
  status: CallStatus,
  duration: number | undefined,
): Promise<CallRow | undefined> {
  const { rows } = await db.query<CallRow>(
    `UPDATE calls SET status = $4, duration = coalesce($5, duration), updated_at = now(),
            ended_at = CASE WHEN ${RANK('$4::text')} = 3 THEN now() ELSE ended_at END
      WHERE account_id = $1 AND provider = $2 AND provider_call_id = $3
        AND ${RANK('status')} < ${RANK('$4::text')}
      RETURNING *`,
    [accountId, provider, providerCallId, status, duration ?? null],
  );
  return rows[0];
}

/**
 * Records a recording of a call (a voicemail when the call was sent to voicemail); a repeated
 * callback overwrites it with the same values. Answers false when the account has no such call.
 */
export async function recordCallRecording(
  db: Queryable,
  accountId: string,
  provider: string,
  providerCallId: string,
  r: { url: string | null; duration: number | null; transcription?: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE calls SET recording = true, voicemail = (action = 'voicemail'),
            recording_url = coalesce($4, recording_url), recording_duration = coalesce($5, recording_duration),
            transcription = coalesce($6, transcription), updated_at = now()
      WHERE account_id = $1 AND provider = $2 AND provider_call_id = $3`,
    [accountId, provider, providerCallId, r.url, r.duration, r.transcription ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** Filters of the call listing; all optional. */
export interface CallFilter {
  direction?: string;
  status?: string;
  contactId?: string;
  from?: Date;
  to?: Date;
}

/** One page of the account's calls, newest first, with the total. */
export async function listCalls(
  db: Queryable,
  accountId: string,
  filter: CallFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: CallRow[]; total: number }> {
  const params: unknown[] = [accountId];
  const cond = ['account_id = $1'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    cond.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.direction) add('direction = ?', filter.direction);
  if (filter.status) add('status = ?', filter.status);
  if (filter.contactId) add('contact_id = ?', filter.contactId);
  if (filter.from) add('created_at >= ?', filter.from);
  if (filter.to) add('created_at < ?', filter.to);
  const where = cond.join(' AND ');
  const [items, count] = await Promise.all([
    db.query<CallRow>(
      `SELECT * FROM calls WHERE ${where} ORDER BY created_at DESC, id DESC
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM calls WHERE ${where}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
