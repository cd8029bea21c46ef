/** SQL of a bulk send's recipients: contacts by id, conversations, and filters (tags, attributes, a list). */

import { contactFilterSql } from './contacts.ts';
import { type AttributeCondition, type ListRow, listMemberCondition } from './lists.ts';

/** Who a bulk send goes to: each source optional; a contact named by several gets one message. */
export interface RecipientSpec {
  /** Existing contacts by id (already checked to exist). */
  contactIds: string[];
  /** Conversations by id (already checked to exist): their contact, from their number. */
  conversationIds: string[];
  /** Contacts matching every given condition (`q`: a smart list's free text); none means every contact. */
  filter?: {
    tags: string[];
    attributes: AttributeCondition[];
    q?: string;
    list?: Pick<ListRow, 'id' | 'filter'>;
  };
}

/** The recipients of a spec as a query of `contact_id` (and the number a conversation forces); `$1` is the account. */
export function recipientsSql(r: RecipientSpec, params: unknown[]): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const sources: string[] = [];
  if (r.conversationIds.length > 0) {
    sources.push(`SELECT cv.contact_id, cv.phone_number_id AS forced_number_id, 0 AS pri
                  FROM conversations cv WHERE cv.account_id = $1 AND cv.id = ANY(${add(r.conversationIds)}::uuid[])`);
  }
  if (r.contactIds.length > 0) {
    sources.push(`SELECT c.id AS contact_id, NULL::uuid AS forced_number_id, 1 AS pri
                  FROM contacts c WHERE c.account_id = $1 AND c.id = ANY(${add(r.contactIds)}::uuid[])`);
  }
  if (r.filter) {
    const where = ['c.account_id = $1'];
    // The tags index holds only contacts with tags (migration 0440): the condition lets it serve.
    if (r.filter.tags.length > 0) where.push(`c.tags <> '[]'::jsonb`);
    for (const tag of r.filter.tags) where.push(`c.tags @> ${add(JSON.stringify([{ tag }]))}::jsonb`);
    if (r.filter.attributes.length > 0) {
      where.push(
        listMemberCondition(
          { id: '00000000-0000-0000-0000-000000000000', filter: { attributes: r.filter.attributes } },
          params,
        ),
      );
    }
    if (r.filter.q) where.push(...contactFilterSql({ q: r.filter.q }, params));
    if (r.filter.list) where.push(listMemberCondition(r.filter.list, params));
    sources.push(
      `SELECT c.id AS contact_id, NULL::uuid AS forced_number_id, 2 AS pri FROM contacts c WHERE ${where.join(' AND ')}`,
    );
  }
  // No source left (e.g. every number named was invalid): no recipient, and still a valid statement.
  if (sources.length === 0)
    return 'SELECT NULL::uuid AS contact_id, NULL::uuid AS forced_number_id, 0 AS pri WHERE false';
  if (sources.length === 1) return sources[0];
  // A contact named by several sources gets one message; a conversation's number wins.
  return `SELECT DISTINCT ON (contact_id) contact_id, forced_number_id, pri
          FROM (${sources.join(' UNION ALL ')}) s ORDER BY contact_id, pri`;
}
