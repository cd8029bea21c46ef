import type { Queryable } from '../client.ts';
import { assignColumns, type ColumnMap } from './columns.ts';

/** One field of a lead form as stored. */
export interface FormFieldDef {
  name: string;
  label: string;
  type: 'text' | 'textarea' | 'email' | 'tel' | 'number' | 'date' | 'checkbox' | 'select';
  required: boolean;
  options?: string[];
}

/** A form as stored, with its totals (summed from the daily counters) and its list's name. */
export interface FormRow {
  account_id: string;
  id: string;
  name: string;
  description: string | null;
  template_id: string | null;
  fields: FormFieldDef[];
  list_id: string | null;
  list_name: string | null;
  default_country: string;
  confirmation_message: string | null;
  consent_text: string | null;
  submit_label: string | null;
  success_message: string | null;
  active_at: Date | null;
  impressions: number;
  conversions: number;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** The writable fields of a form; undefined = not given, null = cleared. */
export interface FormFields {
  name?: string;
  description?: string | null;
  templateId?: string | null;
  fields?: FormFieldDef[];
  listId?: string | null;
  defaultCountry?: string;
  confirmationMessage?: string | null;
  consentText?: string | null;
  submitLabel?: string | null;
  successMessage?: string | null;
}

const COLUMNS: ColumnMap<FormFields> = {
  name: ['name', 'plain'],
  description: ['description', 'plain'],
  templateId: ['template_id', 'plain'],
  fields: ['fields', 'json'],
  listId: ['list_id', 'plain'],
  defaultCountry: ['default_country', 'plain'],
  confirmationMessage: ['confirmation_message', 'plain'],
  consentText: ['consent_text', 'plain'],
  submitLabel: ['submit_label', 'plain'],
  successMessage: ['success_message', 'plain'],
};

const SELECT = `SELECT f.*, l.name AS list_name,
    coalesce(s.impressions, 0)::int AS impressions, coalesce(s.conversions, 0)::int AS conversions
  FROM forms f
  LEFT JOIN lists l ON l.account_id = f.account_id AND l.id = f.list_id
  LEFT JOIN LATERAL (
    SELECT sum(d.impressions) AS impressions, sum(d.conversions) AS conversions FROM form_daily_stats d
     WHERE d.account_id = f.account_id AND d.form_id = f.id) s ON true`;

/** Inserts a form; `active` makes it live at once. */
export async function insertForm(
  db: Queryable,
  accountId: string,
  f: FormFields & { id: string; name: string; fields: FormFieldDef[]; active: boolean; by: object },
): Promise<void> {
  const params: unknown[] = [accountId, f.id, f.by, f.active];
  const { cols, vals } = assignColumns(COLUMNS, f, params);
  await db.query(
    `INSERT INTO forms (account_id, id, created_by, updated_by, active_at, ${cols.join(', ')})
     VALUES ($1, $2, $3, $3, CASE WHEN $4::boolean THEN now() END, ${vals.join(', ')})`,
    params,
  );
}

/** One of the account's forms with its totals and list name. */
export async function findForm(db: Queryable, accountId: string, id: string): Promise<FormRow | undefined> {
  const { rows } = await db.query<FormRow>(`${SELECT} WHERE f.account_id = $1 AND f.id = $2`, [
    accountId,
    id,
  ]);
  return rows[0];
}

/**
 * An active form by id alone, for the public page (its path names no account). With `lock`, the
 * row is share-locked so that a submission and a concurrent delete cannot interleave.
 */
export async function findActiveFormById(
  db: Queryable,
  formId: string,
  opts: { lock?: boolean } = {},
): Promise<FormRow | undefined> {
  const { rows } = await db.query<FormRow>(
    `SELECT f.*, NULL::text AS list_name, 0 AS impressions, 0 AS conversions FROM forms f
     WHERE f.id = $1 AND f.active_at IS NOT NULL${opts.lock ? ' FOR SHARE' : ''}`,
    [formId],
  );
  return rows[0];
}

/** Sets the given fields only; answers false when the account has no such form. */
export async function updateForm(
  db: Queryable,
  accountId: string,
  id: string,
  f: FormFields,
  by: object,
): Promise<boolean> {
  const params: unknown[] = [accountId, id, by];
  const { cols, vals } = assignColumns(COLUMNS, f, params);
  const sets = cols.map((c, i) => `${c} = ${vals[i]}`);
  const { rowCount } = await db.query(
    `UPDATE forms SET ${[...sets, 'updated_at = now()', 'updated_by = $3'].join(', ')}
     WHERE account_id = $1 AND id = $2`,
    params,
  );
  return (rowCount ?? 0) > 0;
}

/** Activates (keeping an earlier activation time) or deactivates a form; false when there is none. */
export async function setFormActive(
  db: Queryable,
  accountId: string,
  id: string,
  active: boolean,
  by: object,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE forms SET active_at = CASE WHEN $3::boolean THEN coalesce(active_at, now()) END,
            updated_at = now(), updated_by = $4
     WHERE account_id = $1 AND id = $2`,
    [accountId, id, active, by],
  );
  return (rowCount ?? 0) > 0;
}

/** Deletes a form (its counters and conversions cascade); false when there is none. */
export async function deleteForm(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM forms WHERE account_id = $1 AND id = $2', [accountId, id]);
  return (rowCount ?? 0) > 0;
}

/** One page of the account's forms, newest first (optionally by partial name), with the total. */
export async function listForms(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: FormRow[]; total: number }> {
  const params: unknown[] = [accountId];
  let cond = 'f.account_id = $1';
  if (filter.name) {
    params.push(`%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    cond += ` AND f.name ILIKE $${params.length}`;
  }
  const [items, count] = await Promise.all([
    db.query<FormRow>(
      `${SELECT} WHERE ${cond} ORDER BY f.created_at DESC, f.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM forms f WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}
