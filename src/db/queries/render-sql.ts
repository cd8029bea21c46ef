/** Merge fields rendered in SQL: the set-based mirror of renderTemplate (messaging/render.ts). */

import type { TemplatePart } from '../../messaging/render.ts';
import type { Queryable } from '../client.ts';

/** The contact columns a merge field reads, for a contacts row aliased `c`. */
const FIELD_SQL: Record<string, string> = {
  id: 'c.id::text',
  firstName: 'c.first_name',
  lastName: 'c.last_name',
  email: 'c.email',
  mobile: 'c.mobile_number',
  country: 'c.mobile_country',
};

/**
 * Compiles a parsed template (messaging/render.ts) to a SQL text expression over a contacts row
 * `c`, appending literal texts and attribute names to params: the set-based mirror of renderTemplate.
 */
export function renderSql(parts: TemplatePart[], params: unknown[], smart = false): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}::text`;
  };
  if (parts.length === 0) return "''::text";
  // Smart encoding: the template's own text comes encoded already (encodeText), the merged-in values
  // are encoded here by the SQL mirror of smartEncode (migration 0295).
  const value = (sql: string) => (smart ? `sparrow_smart_encode(${sql})` : sql);
  const pieces = parts.map((p) => {
    if (p.kind === 'text') return add(p.text);
    if (p.kind === 'field') return value(FIELD_SQL[p.field]);
    return value(`(c.attributes ->> ${add(p.name)})`);
  });
  return `concat(${pieces.join(', ')})`;
}

/** Renders a template for contacts by id with renderSql (to prove SQL and TypeScript agree). */
export async function renderForContacts(
  db: Queryable,
  accountId: string,
  parts: TemplatePart[],
  contactIds: string[],
  smart = false,
): Promise<{ id: string; body: string; encoding: string; units: number; segments: number }[]> {
  const params: unknown[] = [accountId, contactIds];
  const expr = renderSql(parts, params, smart);
  const { rows } = await db.query(
    `SELECT id, body, sparrow_encoding(body) AS encoding, sparrow_units(body) AS units, sparrow_segments(body) AS segments
     FROM (SELECT c.id, ${expr} AS body FROM contacts c WHERE c.account_id = $1 AND c.id = ANY($2::uuid[])) x`,
    params,
  );
  return rows;
}
