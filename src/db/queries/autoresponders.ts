import type { Queryable } from '../client.ts';

/** A Media item of an autoresponder's message. */
export interface AutoresponderMedia {
  url: string;
  type?: string;
  name?: string;
  filename?: string;
}

/** What triggers an autoresponder. */
export type AutoresponderTriggerType = 'keywords' | 'outsideOfficeHours';

/** An autoresponder as stored, with its group's name (null when it has no group). */
export interface AutoresponderRow {
  account_id: string;
  id: string;
  name: string;
  group_id: string | null;
  group_name: string | null;
  trigger_type: AutoresponderTriggerType;
  keywords: string[];
  message: string;
  media: AutoresponderMedia[];
  active: boolean;
  priority: number;
  triggered_count: string;
  replies_sent: string;
  suppressed_count: string;
  last_triggered_at: Date | null;
  last_reply_at: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** The fields of an autoresponder a caller sets. */
export interface AutoresponderFields {
  name: string;
  groupId: string | null;
  triggerType: AutoresponderTriggerType;
  keywords: string[];
  /** The keywords folded for matching (matchKeyOf). */
  keywordKeys: string[];
  message: string;
  media: AutoresponderMedia[];
  active: boolean;
  priority: number;
}

const WITH_GROUP = `SELECT a.*, g.name AS group_name
  FROM autoresponders a
  LEFT JOIN groups g ON g.account_id = a.account_id AND g.id = a.group_id`;

export async function insertAutoresponder(
  db: Queryable,
  accountId: string,
  f: AutoresponderFields & { id: string; by: object },
): Promise<AutoresponderRow> {
  await db.query(
    `INSERT INTO autoresponders (account_id, id, name, group_id, trigger_type, keywords, message, media,
                                 active, priority, created_by, updated_by, keyword_keys)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11, $12)`,
    [
      accountId,
      f.id,
      f.name,
      f.groupId,
      f.triggerType,
      JSON.stringify(f.keywords),
      f.message,
      JSON.stringify(f.media),
      f.active,
      f.priority,
      f.by,
      f.keywordKeys,
    ],
  );
  return (await findAutoresponder(db, accountId, f.id)) as AutoresponderRow;
}

export async function findAutoresponder(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<AutoresponderRow | undefined> {
  const { rows } = await db.query<AutoresponderRow>(`${WITH_GROUP} WHERE a.account_id = $1 AND a.id = $2`, [
    accountId,
    id,
  ]);
  return rows[0];
}

/** Replaces the caller's fields (stats are untouched); undefined when the account has no such autoresponder. */
export async function updateAutoresponder(
  db: Queryable,
  accountId: string,
  id: string,
  f: AutoresponderFields,
  by: object,
): Promise<AutoresponderRow | undefined> {
  const { rowCount } = await db.query(
    `UPDATE autoresponders SET
       name = $3, group_id = $4, trigger_type = $5, keywords = $6, message = $7, media = $8,
       active = $9, priority = $10, updated_at = now(), updated_by = $11, keyword_keys = $12
     WHERE account_id = $1 AND id = $2`,
    [
      accountId,
      id,
      f.name,
      f.groupId,
      f.triggerType,
      JSON.stringify(f.keywords),
      f.message,
      JSON.stringify(f.media),
      f.active,
      f.priority,
      by,
      f.keywordKeys,
    ],
  );
  return rowCount ? findAutoresponder(db, accountId, id) : undefined;
}

export async function deleteAutoresponder(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM autoresponders WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * How many autoresponders the account holds, under a transaction-scoped lock on the account's
 * autoresponder count (so concurrent creates cannot both pass the cap).
 */
export async function countAutorespondersLocked(db: Queryable, accountId: string): Promise<number> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext('autoresponders:' || $1))`, [accountId]);
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM autoresponders WHERE account_id = $1',
    [accountId],
  );
  return rows[0].n;
}

/** One page of the account's autoresponders, newest first, optionally by group and by active, with the total. */
export async function listAutoresponders(
  db: Queryable,
  accountId: string,
  filter: { groupId?: string; active?: boolean },
  page: { offset: number; limit: number },
): Promise<{ rows: AutoresponderRow[]; total: number }> {
  const params: unknown[] = [accountId];
  let cond = 'a.account_id = $1';
  if (filter.groupId !== undefined) {
    params.push(filter.groupId);
    cond += ` AND a.group_id = $${params.length}`;
  }
  if (filter.active !== undefined) {
    params.push(filter.active);
    cond += ` AND a.active = $${params.length}`;
  }
  const [items, count] = await Promise.all([
    db.query<AutoresponderRow>(
      `${WITH_GROUP} WHERE ${cond} ORDER BY a.created_at DESC, a.id DESC
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM autoresponders a WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

/** An active autoresponder that may answer a text to one number, with its group's office hours. */
export interface CandidateRow {
  id: string;
  trigger_type: AutoresponderTriggerType;
  keyword_keys: string[];
  message: string;
  media: AutoresponderMedia[];
  office_hours: Record<string, unknown> | null;
}

/**
 * The account's active autoresponders that answer for our number `phoneNumberId` (no group, or a
 * group holding the number), in precedence order: keyword triggers first, then by priority (higher
 * first), then oldest first.
 */
export async function candidateAutoresponders(
  db: Queryable,
  accountId: string,
  phoneNumberId: string,
): Promise<CandidateRow[]> {
  const { rows } = await db.query<CandidateRow>(
    `SELECT a.id, a.trigger_type, a.keyword_keys, a.message, a.media, g.office_hours
       FROM autoresponders a
       LEFT JOIN groups g ON g.account_id = a.account_id AND g.id = a.group_id
      WHERE a.account_id = $1 AND a.active
        AND (a.group_id IS NULL OR EXISTS (
              SELECT 1 FROM group_numbers gn
               WHERE gn.account_id = a.account_id AND gn.group_id = a.group_id AND gn.phone_number_id = $2))
      ORDER BY (a.trigger_type = 'keywords') DESC, a.priority DESC, a.created_at, a.id`,
    [accountId, phoneNumberId],
  );
  return rows;
}

/**
 * Marks that the autoresponder answers the contact now, unless it did within the last
 * `windowMinutes`: answers true when the mark was set (the reply may go), false when it is still
 * fresh. Concurrent texts from one contact serialise on the mark's row, so only one wins.
 */
export async function takeReplyMark(
  db: Queryable,
  accountId: string,
  autoresponderId: string,
  contactId: string,
  windowMinutes: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO autoresponder_marks AS m (account_id, autoresponder_id, contact_id, replied_at)
     VALUES ($1, $2, $3, now())
     ON CONFLICT (account_id, autoresponder_id, contact_id) DO UPDATE SET replied_at = now()
       WHERE m.replied_at <= now() - make_interval(mins => $4)`,
    [accountId, autoresponderId, contactId, windowMinutes],
  );
  return (rowCount ?? 0) > 0;
}

/** Counts one trigger of the autoresponder: answered (a reply queued) or suppressed. */
export async function recordTrigger(
  db: Queryable,
  accountId: string,
  autoresponderId: string,
  answered: boolean,
): Promise<void> {
  await db.query(
    `UPDATE autoresponders SET
       triggered_count = triggered_count + 1, last_triggered_at = now(),
       replies_sent = replies_sent + CASE WHEN $3 THEN 1 ELSE 0 END,
       suppressed_count = suppressed_count + CASE WHEN $3 THEN 0 ELSE 1 END,
       last_reply_at = CASE WHEN $3 THEN now() ELSE last_reply_at END
     WHERE account_id = $1 AND id = $2`,
    [accountId, autoresponderId, answered],
  );
}
