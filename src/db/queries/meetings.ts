import type { Queryable } from '../client.ts';
import { lockDueSql, type QueueSpec } from './claim.ts';
import type { MeetingPerson } from './meetings-events.ts';

/** A booked meeting as stored. */
export interface MeetingRow {
  account_id: string;
  id: string;
  event_id: string | null;
  name: string;
  description: string | null;
  timezone: string;
  notes: string | null;
  start_at: Date;
  end_at: Date;
  blocked_until: Date;
  status: 'upcoming' | 'cancelled' | 'completed';
  hosts: MeetingPerson[];
  attendees: MeetingPerson[];
  reminder_due_at: Date | null;
  reminder_sms: boolean;
  reminder_sent_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** A new meeting. */
export interface NewMeeting {
  id: string;
  eventId: string;
  name: string;
  description: string | null;
  timezone: string;
  notes: string | null;
  start: Date;
  end: Date;
  blockedUntil: Date;
  hosts: MeetingPerson[];
  attendees: MeetingPerson[];
  reminderDueAt: Date | null;
  reminderSms: boolean;
  by: object;
}

/**
 * Inserts an upcoming meeting. Overlapping a live meeting of the same event type (buffer
 * included) fails with SQLSTATE 23P01 (the meetings_no_overlap exclusion constraint).
 */
export async function insertMeeting(db: Queryable, accountId: string, m: NewMeeting): Promise<MeetingRow> {
  const { rows } = await db.query<MeetingRow>(
    `INSERT INTO meetings (account_id, id, event_id, name, description, timezone, notes, start_at, end_at,
                           blocked_until, hosts, attendees, reminder_due_at, reminder_sms, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15) RETURNING *`,
    [
      accountId,
      m.id,
      m.eventId,
      m.name,
      m.description,
      m.timezone,
      m.notes,
      m.start,
      m.end,
      m.blockedUntil,
      JSON.stringify(m.hosts),
      JSON.stringify(m.attendees),
      m.reminderDueAt,
      m.reminderSms,
      m.by,
    ],
  );
  return rows[0];
}

export async function findMeeting(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<MeetingRow | undefined> {
  const { rows } = await db.query<MeetingRow>('SELECT * FROM meetings WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return rows[0];
}

/** The live (not cancelled) meetings of an event type whose blocked time overlaps [from, to). */
export async function busyMeetings(
  db: Queryable,
  accountId: string,
  eventId: string,
  from: Date,
  to: Date,
): Promise<{ start_at: Date; blocked_until: Date }[]> {
  const { rows } = await db.query<{ start_at: Date; blocked_until: Date }>(
    `SELECT start_at, blocked_until FROM meetings
     WHERE account_id = $1 AND event_id = $2 AND status <> 'cancelled'
       AND tstzrange(start_at, blocked_until, '[)') && tstzrange($3, $4, '[)')`,
    [accountId, eventId, from, to],
  );
  return rows;
}

/**
 * Cancels an upcoming meeting (its slot is free again at once: the overlap constraint ignores
 * cancelled meetings). Answers the row as it is afterwards, or undefined when there is none.
 */
export async function cancelMeeting(
  db: Queryable,
  accountId: string,
  id: string,
  by: object,
): Promise<MeetingRow | undefined> {
  const { rows } = await db.query<MeetingRow>(
    `UPDATE meetings SET status = 'cancelled', cancelled_at = now(), updated_at = now(), updated_by = $3
     WHERE account_id = $1 AND id = $2 AND status = 'upcoming' AND end_at > now() RETURNING *`,
    [accountId, id, by],
  );
  return rows[0];
}

/** SQL for the status as shown: an upcoming meeting whose end has passed is completed. */
const EFFECTIVE_STATUS = `CASE WHEN status = 'upcoming' AND end_at <= now() THEN 'completed' ELSE status END`;

/** One page of the account's meetings by start time, with the total. */
export async function listMeetings(
  db: Queryable,
  accountId: string,
  filter: { status?: string; from?: Date; to?: Date; eventId?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: MeetingRow[]; total: number }> {
  const params: unknown[] = [accountId];
  const conds = ['account_id = $1'];
  if (filter.status) {
    params.push(filter.status);
    conds.push(`${EFFECTIVE_STATUS} = $${params.length}`);
  }
  if (filter.from) {
    params.push(filter.from);
    conds.push(`start_at >= $${params.length}`);
  }
  if (filter.to) {
    params.push(filter.to);
    conds.push(`start_at < $${params.length}`);
  }
  if (filter.eventId) {
    params.push(filter.eventId);
    conds.push(`event_id = $${params.length}`);
  }
  const cond = conds.join(' AND ');
  const [items, count] = await Promise.all([
    db.query<MeetingRow>(
      `SELECT * FROM meetings WHERE ${cond} ORDER BY start_at, id
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM meetings WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

/**
 * The queue of due meeting reminders: upcoming meetings whose reminder is due and unsent, each
 * locked for the transaction that sends it. A meeting that has already started gets no late reminder.
 */
export const REMINDER_QUEUE: QueueSpec = {
  table: 'meetings',
  key: ['account_id', 'id'],
  due: `q.reminder_due_at <= now() AND q.reminder_due_at IS NOT NULL AND q.reminder_sent_at IS NULL
       AND q.status = 'upcoming' AND q.start_at > now()`,
  order: 'q.reminder_due_at',
};

/** Upcoming meetings that have ended (to mark completed). */
const ENDED_QUEUE: QueueSpec = {
  table: 'meetings',
  key: ['account_id', 'id'],
  due: `q.status = 'upcoming' AND q.end_at <= now()`,
  order: 'q.end_at',
};

/** Records that a meeting's reminder went out (in the transaction that queued it). */
export async function markReminderSent(tx: Queryable, accountId: string, id: string): Promise<void> {
  await tx.query('UPDATE meetings SET reminder_sent_at = now() WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
}

/** Worker sweep across accounts: marks up to `limit` upcoming meetings that have ended completed. */
export async function completeEndedMeetings(db: Queryable, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `WITH ended AS (${lockDueSql(ENDED_QUEUE, { limit: '$1' })})
     UPDATE meetings m SET status = 'completed', updated_at = now()
     FROM ended WHERE m.account_id = ended.account_id AND m.id = ended.id`,
    [limit],
  );
  return rowCount ?? 0;
}
