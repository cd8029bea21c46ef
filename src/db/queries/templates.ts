import type { Queryable } from '../client.ts';
import { listByName } from './paging.ts';

/** A Media item attached to a template. */
export interface TemplateMedia {
  url: string;
  type?: string;
  name?: string;
  filename?: string;
}

/** A message template as stored. */
export interface TemplateRow {
  account_id: string;
  id: string;
  name: string;
  type: 'SMS' | 'Web';
  template: string;
  media: TemplateMedia[];
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** The fields of a template a caller sets. */
export interface TemplateFields {
  name: string;
  type: 'SMS' | 'Web';
  template: string;
  media: TemplateMedia[];
}

export async function insertTemplate(
  db: Queryable,
  accountId: string,
  t: TemplateFields & { id: string; by: object },
): Promise<TemplateRow> {
  const { rows } = await db.query<TemplateRow>(
    `INSERT INTO templates (account_id, id, name, type, template, media, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
    [accountId, t.id, t.name, t.type, t.template, JSON.stringify(t.media), t.by],
  );
  return rows[0];
}

export async function findTemplate(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  const { rows } = await db.query<TemplateRow>('SELECT * FROM templates WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return rows[0];
}

/** Sets the given fields only; answers undefined when the account has no such template. */
export async function updateTemplate(
  db: Queryable,
  accountId: string,
  id: string,
  f: Partial<TemplateFields>,
  by: object,
): Promise<TemplateRow | undefined> {
  const { rows } = await db.query<TemplateRow>(
    `UPDATE templates SET
       name = coalesce($3, name),
       type = coalesce($4, type),
       template = coalesce($5, template),
       media = coalesce($6::jsonb, media),
       updated_at = now(), updated_by = $7
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    [
      accountId,
      id,
      f.name ?? null,
      f.type ?? null,
      f.template ?? null,
      f.media === undefined ? null : JSON.stringify(f.media),
      by,
    ],
  );
  return rows[0];
}

export async function deleteTemplate(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM templates WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** One page of the account's templates, newest first (optionally by partial name), with the total. */
export async function listTemplates(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: TemplateRow[]; total: number }> {
  return listByName<TemplateRow>(db, 'templates', accountId, filter, page);
}
