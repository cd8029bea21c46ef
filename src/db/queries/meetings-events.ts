import type { Queryable } from '../client.ts';
import { assignColumns, type ColumnMap } from './columns.ts';
import { listByName } from './paging.ts';

/** A time of day in availability ranges. */
export interface TimeOfDay {
  hour: number;
  minute: number;
}

/** Weekday keys of the officeHours `times` shape. */
export type Weekday = 'sun' | 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat';

/** Weekly availability in the officeHours `times` shape. */
export type Availability = Partial<Record<Weekday, { start: TimeOfDay; end: TimeOfDay }[]>>;

/** A host of a meeting event type (and of the meetings booked on it). */
export interface MeetingPerson {
  id: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  /** E.164. */
  mobile?: string;
}

/** A meeting event type as stored. */
export interface MeetingEventRow {
  account_id: string;
  id: string;
  name: string;
  description: string | null;
  slug: string;
  durations: number[];
  slot_increment: number | null;
  timezone: string;
  availability: Availability;
  buffer_minutes: number;
  min_notice_minutes: number;
  horizon_days: number;
  hosts: MeetingPerson[];
  active: boolean;
  reminder_minutes: number | null;
  reminder_sms: boolean;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** The writable fields of a meeting event type; undefined = not given, null = cleared. */
export interface MeetingEventFields {
  name?: string;
  description?: string | null;
  slug?: string;
  durations?: number[];
  slotIncrement?: number | null;
  timezone?: string;
  availability?: Availability;
  bufferMinutes?: number;
  minNoticeMinutes?: number;
  horizonDays?: number;
  hosts?: MeetingPerson[];
  active?: boolean;
  reminderMinutes?: number | null;
  reminderSms?: boolean;
}

const COLUMNS: ColumnMap<MeetingEventFields> = {
  name: ['name', 'plain'],
  description: ['description', 'plain'],
  slug: ['slug', 'plain'],
  durations: ['durations', 'plain'],
  slotIncrement: ['slot_increment', 'plain'],
  timezone: ['timezone', 'plain'],
  availability: ['availability', 'json'],
  bufferMinutes: ['buffer_minutes', 'plain'],
  minNoticeMinutes: ['min_notice_minutes', 'plain'],
  horizonDays: ['horizon_days', 'plain'],
  hosts: ['hosts', 'json'],
  active: ['active', 'plain'],
  reminderMinutes: ['reminder_minutes', 'plain'],
  reminderSms: ['reminder_sms', 'plain'],
};

/**
 * Inserts an event type; answers undefined (and inserts nothing) when its slug is taken, so a
 * caller can try another slug without aborting its transaction.
 */
export async function insertMeetingEvent(
  db: Queryable,
  accountId: string,
  e: MeetingEventFields & { id: string; name: string; slug: string; by: object },
): Promise<MeetingEventRow | undefined> {
  const params: unknown[] = [accountId, e.id, e.by];
  const { cols, vals } = assignColumns(COLUMNS, e, params);
  const { rows } = await db.query<MeetingEventRow>(
    `INSERT INTO meeting_events (account_id, id, created_by, updated_by, ${cols.join(', ')})
     VALUES ($1, $2, $3, $3, ${vals.join(', ')})
     ON CONFLICT (slug) DO NOTHING RETURNING *`,
    params,
  );
  return rows[0];
}

export async function findMeetingEvent(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<MeetingEventRow | undefined> {
  const { rows } = await db.query<MeetingEventRow>(
    'SELECT * FROM meeting_events WHERE account_id = $1 AND id = $2',
    [accountId, id],
  );
  return rows[0];
}

/**
 * The active event type with this public slug, in whichever account owns it. The one lookup not
 * scoped by account: the public booking address carries only the slug.
 */
export async function findActiveMeetingEventBySlug(
  db: Queryable,
  slug: string,
): Promise<MeetingEventRow | undefined> {
  const { rows } = await db.query<MeetingEventRow>(
    'SELECT * FROM meeting_events WHERE slug = $1 AND active',
    [slug],
  );
  return rows[0];
}

/** Sets the given fields only; answers the row, or undefined when the account has no such event type. */
export async function updateMeetingEvent(
  db: Queryable,
  accountId: string,
  id: string,
  f: MeetingEventFields,
  by: object,
): Promise<MeetingEventRow | undefined> {
  const params: unknown[] = [accountId, id, by];
  const { cols, vals } = assignColumns(COLUMNS, f, params);
  const sets = cols.map((c, i) => `${c} = ${vals[i]}`);
  const { rows } = await db.query<MeetingEventRow>(
    `UPDATE meeting_events SET ${[...sets, 'updated_at = now()', 'updated_by = $3'].join(', ')}
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    params,
  );
  return rows[0];
}

export async function deleteMeetingEvent(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM meeting_events WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** One page of the account's event types, newest first (optionally by partial name), with the total. */
export async function listMeetingEvents(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: MeetingEventRow[]; total: number }> {
  return listByName<MeetingEventRow>(db, 'meeting_events', accountId, filter, page);
}
