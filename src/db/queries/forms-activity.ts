import type { Queryable } from '../client.ts';

/** A form conversion as stored. */
export interface ConversionRow {
  account_id: string;
  id: string;
  form_id: string;
  contact_id: string | null;
  contact: Record<string, string | null>;
  ip: string | null;
  page_url: string | null;
  submitted_fields: Record<string, unknown>;
  confirmation_message_id: string | null;
  confirmation_error: { code: string; description: string } | null;
  submitted_at: Date;
}

/** A day of a form's activity. */
export interface FormDayRow {
  day: string;
  impressions: number;
  conversions: number;
}

/** Adds one impression or conversion to the form's counter for today (UTC). */
export async function bumpFormStat(
  db: Queryable,
  accountId: string,
  formId: string,
  what: 'impressions' | 'conversions',
): Promise<void> {
  // `what` is one of two column names fixed by the type, never user input.
  await db.query(
    `INSERT INTO form_daily_stats (account_id, form_id, day, ${what})
     VALUES ($1, $2, (now() AT TIME ZONE 'UTC')::date, 1)
     ON CONFLICT (account_id, form_id, day) DO UPDATE SET ${what} = form_daily_stats.${what} + 1`,
    [accountId, formId],
  );
}

/** Every day from `start` to `end` (inclusive, UTC dates) with the form's counts, zero when none. */
export async function formDays(
  db: Queryable,
  accountId: string,
  formId: string,
  start: string,
  end: string,
): Promise<FormDayRow[]> {
  const { rows } = await db.query<FormDayRow>(
    `SELECT to_char(g.day, 'YYYY-MM-DD') AS day,
            coalesce(s.impressions, 0)::int AS impressions, coalesce(s.conversions, 0)::int AS conversions
       FROM generate_series($3::date, $4::date, interval '1 day') AS g(day)
       LEFT JOIN form_daily_stats s ON s.account_id = $1 AND s.form_id = $2 AND s.day = g.day::date
      ORDER BY g.day`,
    [accountId, formId, start, end],
  );
  return rows;
}

/** Records one accepted submission of a form. */
export async function insertConversion(
  db: Queryable,
  accountId: string,
  c: {
    id: string;
    formId: string;
    contactId: string;
    contact: Record<string, string | null>;
    ip: string | null;
    pageUrl: string | null;
    submittedFields: Record<string, unknown>;
    confirmationMessageId: string | null;
    confirmationError: { code: string; description: string } | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO form_conversions (account_id, id, form_id, contact_id, contact, ip, page_url, submitted_fields,
       confirmation_message_id, confirmation_error)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      accountId,
      c.id,
      c.formId,
      c.contactId,
      JSON.stringify(c.contact),
      c.ip,
      c.pageUrl,
      JSON.stringify(c.submittedFields),
      c.confirmationMessageId,
      c.confirmationError === null ? null : JSON.stringify(c.confirmationError),
    ],
  );
}

/** A page of a form's conversions submitted in [from, to), newest first, with the total. */
export async function listConversions(
  db: Queryable,
  accountId: string,
  formId: string,
  range: { from?: Date; to?: Date },
  page: { offset: number; limit: number },
): Promise<{ rows: ConversionRow[]; total: number }> {
  const params: unknown[] = [accountId, formId];
  let cond = 'account_id = $1 AND form_id = $2';
  if (range.from) {
    params.push(range.from);
    cond += ` AND submitted_at >= $${params.length}`;
  }
  if (range.to) {
    params.push(range.to);
    cond += ` AND submitted_at < $${params.length}`;
  }
  const [items, count] = await Promise.all([
    db.query<ConversionRow>(
      `SELECT * FROM form_conversions WHERE ${cond} ORDER BY submitted_at DESC, id DESC
       LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM form_conversions WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
