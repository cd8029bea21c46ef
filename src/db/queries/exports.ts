import type { Queryable } from '../client.ts';
import { type ContactFilter, type ContactRow, contactFilterSql } from './contacts.ts';
import { MESSAGE_STATUS_SQL } from './messages.ts';
import { ID_FLOOR } from './reports.ts';

/** The custom-field names of the contacts a filter matches, sorted (at most `limit`). */
export async function contactAttributeNames(
  db: Queryable,
  accountId: string,
  filter: ContactFilter,
  limit: number,
): Promise<string[]> {
  const params: unknown[] = [accountId];
  const where = ['c.account_id = $1', ...contactFilterSql(filter, params)].join(' AND ');
  params.push(limit);
  const { rows } = await db.query<{ name: string }>(
    `SELECT DISTINCT k AS name FROM contacts c, jsonb_object_keys(c.attributes) k
      WHERE ${where} ORDER BY 1 LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => r.name);
}

/** The contacts a filter matches with an id after `after` (null: from the first), in id order. */
export async function contactsAfter(
  db: Queryable,
  accountId: string,
  filter: ContactFilter,
  after: string | null,
  limit: number,
): Promise<ContactRow[]> {
  const params: unknown[] = [accountId];
  const where = ['c.account_id = $1', ...contactFilterSql(filter, params)];
  params.push(after);
  where.push(`($${params.length}::uuid IS NULL OR c.id > $${params.length})`);
  params.push(limit);
  const { rows } = await db.query<ContactRow>(
    `SELECT c.* FROM contacts c WHERE ${where.join(' AND ')} ORDER BY c.id LIMIT $${params.length}`,
    params,
  );
  return rows;
}

/** Which messages a messages export holds: created in [from, to), optionally one status and direction. */
export interface MessageExportFilter {
  from: Date;
  to: Date;
  status?: string;
  outgoing?: boolean;
}

/** A message as a row of the export. */
export interface MessageExportRow {
  id: string;
  created_at: Date;
  outgoing: boolean;
  from_number: string | null;
  to_number: string | null;
  contact_id: string | null;
  contact_first_name: string | null;
  contact_last_name: string | null;
  status: string;
  segments: number;
  encoding: string | null;
  price: number;
  error_code: string | null;
  error_description: string | null;
  body: string;
  campaign_id: string | null;
  job_id: string | null;
  sent_at: Date | null;
  delivered_at: Date | null;
}

/**
 * The messages of a period with an id after `after`, in id (creation) order: the period is a range
 * of the primary key (ids are UUIDv7), so each batch reads only its rows.
 */
export async function messagesAfter(
  db: Queryable,
  accountId: string,
  f: MessageExportFilter,
  after: string | null,
  limit: number,
): Promise<MessageExportRow[]> {
  const { rows } = await db.query<MessageExportRow>(
    `SELECT m.id, m.created_at, m.outgoing, m.from_number, m.to_number, m.contact_id,
            c.first_name AS contact_first_name, c.last_name AS contact_last_name,
            ${MESSAGE_STATUS_SQL} AS status, m.segments, m.encoding, m.price::float8 AS price,
            m.error->>'code' AS error_code, m.error->>'description' AS error_description, m.body,
            m.campaign_id, m.job_id, m.sent_at, m.delivered_at
       FROM messages m LEFT JOIN contacts c ON c.account_id = m.account_id AND c.id = m.contact_id
      WHERE m.account_id = $1
        AND m.id >= ${ID_FLOOR('$2')} AND m.id < ${ID_FLOOR('$3')}
        AND m.created_at >= $2 AND m.created_at < $3
        AND ($4::uuid IS NULL OR m.id > $4)
        AND ($5::text IS NULL OR ${MESSAGE_STATUS_SQL} = $5)
        AND ($6::boolean IS NULL OR m.outgoing = $6)
      ORDER BY m.id LIMIT $7`,
    [accountId, f.from, f.to, after, f.status ?? null, f.outgoing ?? null, limit],
  );
  return rows;
}
