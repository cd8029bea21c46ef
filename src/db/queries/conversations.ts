import type { Queryable } from '../client.ts';
import type { ContactRow } from './contacts.ts';

/** A conversation row as stored. */
export interface ConversationRow {
  account_id: string;
  id: string;
  contact_id: string;
  phone_number_id: string;
  closed_at: Date | null;
  last_message_id: string | null;
  /** The person of the account the conversation is assigned to (migration 0380). */
  assigned_user_id: string | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** A conversation with what its API shape needs: our number and its unread inbound message ids. */
export interface ConversationView extends ConversationRow {
  phone_number: string | null;
  /** Our number as the published phone-number object (sparrow_phone_number_ref, migration 0210). */
  phone_number_ref: Record<string, unknown> | null;
  unread_ids: string[];
  /** The assigned person's name and e-mail (null when unassigned). */
  assignee: { id: string; email: string; first_name: string; last_name: string } | null;
}

/** Filters of the conversation list; undefined means "any". */
export interface ConversationFilter {
  contactId?: string;
  closed?: boolean;
  unread?: boolean;
  /** true: with at least one inbound message (a reply); false: outbound only (e.g. after a bulk send). */
  replied?: boolean;
  /** Part of the contact's name, mobile number or e-mail (case-insensitive). */
  q?: string;
  /** Only conversations assigned to this person. */
  assigneeId?: string;
  /** true: only unassigned conversations; false: only assigned ones. */
  unassigned?: boolean;
}

const VIEW = `
  SELECT c.*, n.number AS phone_number, sparrow_phone_number_ref(c.account_id, c.phone_number_id) AS phone_number_ref,
         ARRAY(SELECT m.id FROM messages m
               WHERE m.account_id = c.account_id AND m.conversation_id = c.id AND NOT m.outgoing AND NOT m.read
               ORDER BY m.created_at, m.id) AS unread_ids,
         (SELECT jsonb_build_object('id', u.id, 'email', u.email, 'first_name', u.first_name, 'last_name', u.last_name)
            FROM users u WHERE u.id = c.assigned_user_id) AS assignee
  FROM conversations c
  LEFT JOIN phone_numbers n ON n.account_id = c.account_id AND n.id = c.phone_number_id`;

const INBOUND_EXISTS = `EXISTS (SELECT 1 FROM messages m
  WHERE m.account_id = c.account_id AND m.contact_id = c.contact_id AND m.conversation_id = c.id AND NOT m.outgoing)`;

const CONTACT_MATCHES = `EXISTS (SELECT 1 FROM contacts k
  WHERE k.account_id = c.account_id AND k.id = c.contact_id
    AND (coalesce(k.first_name, '') || ' ' || coalesce(k.last_name, '') || ' ' || coalesce(k.mobile_number, '') || ' ' || coalesce(k.email, '')) ILIKE $6 ESCAPE '\\')`;

const UNREAD_EXISTS = `EXISTS (SELECT 1 FROM messages m
  WHERE m.account_id = c.account_id AND m.conversation_id = c.id AND NOT m.outgoing AND NOT m.read)`;

/** The conversation of a (contact, our number) pair, locked for the rest of the transaction. */
export async function lockConversationByPair(
  db: Queryable,
  accountId: string,
  contactId: string,
  phoneNumberId: string,
): Promise<ConversationRow | undefined> {
  const { rows } = await db.query<ConversationRow>(
    `SELECT * FROM conversations WHERE account_id = $1 AND contact_id = $2 AND phone_number_id = $3 FOR UPDATE`,
    [accountId, contactId, phoneNumberId],
  );
  return rows[0];
}

/** Inserts a conversation; answers undefined when the pair already has one (a concurrent insert won). */
export async function insertConversation(
  db: Queryable,
  accountId: string,
  c: { id: string; contactId: string; phoneNumberId: string; by: object },
): Promise<ConversationRow | undefined> {
  const { rows } = await db.query<ConversationRow>(
    `INSERT INTO conversations (account_id, id, contact_id, phone_number_id, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (account_id, contact_id, phone_number_id) DO NOTHING RETURNING *`,
    [accountId, c.id, c.contactId, c.phoneNumberId, c.by],
  );
  return rows[0];
}

export async function reopenConversation(
  db: Queryable,
  accountId: string,
  conversationId: string,
  by: object,
): Promise<ConversationRow> {
  const { rows } = await db.query<ConversationRow>(
    `UPDATE conversations SET closed_at = NULL, updated_at = now(), updated_by = $3
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    [accountId, conversationId, by],
  );
  return rows[0];
}

/** Closes an open conversation; answers undefined when it does not exist or is already closed. */
export async function markConversationClosed(
  db: Queryable,
  accountId: string,
  conversationId: string,
  by: object,
): Promise<ConversationRow | undefined> {
  const { rows } = await db.query<ConversationRow>(
    `UPDATE conversations SET closed_at = now(), updated_at = now(), updated_by = $3
     WHERE account_id = $1 AND id = $2 AND closed_at IS NULL RETURNING *`,
    [accountId, conversationId, by],
  );
  return rows[0];
}

/** Records the newest message of a conversation (its activity time moves with it). */
export async function setLastMessage(
  db: Queryable,
  accountId: string,
  conversationId: string,
  messageId: string,
) {
  await db.query(
    `UPDATE conversations SET last_message_id = $3, updated_at = now() WHERE account_id = $1 AND id = $2`,
    [accountId, conversationId, messageId],
  );
}

/** Marks every unread inbound message of a conversation read; answers how many changed. */
export async function markInboundRead(
  db: Queryable,
  accountId: string,
  conversationId: string,
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE messages SET read = true, updated_at = now()
     WHERE account_id = $1 AND conversation_id = $2 AND NOT outgoing AND NOT read`,
    [accountId, conversationId],
  );
  return rowCount ?? 0;
}

/**
 * Assigns a conversation to a person of the account (null: unassigns it); answers undefined when
 * the account has no such conversation. The caller has checked, and locked, the membership.
 */
export async function setConversationAssignee(
  db: Queryable,
  accountId: string,
  conversationId: string,
  userId: string | null,
  by: object,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE conversations SET assigned_user_id = $3, updated_at = now(), updated_by = $4
     WHERE account_id = $1 AND id = $2`,
    [accountId, conversationId, userId, by],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Marks the newest inbound message of a conversation unread again; answers false when the
 * conversation has no inbound message (or the account has no such conversation).
 */
export async function markNewestInboundUnread(
  db: Queryable,
  accountId: string,
  conversationId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE messages SET read = false, updated_at = now()
     WHERE account_id = $1 AND id = (
       SELECT m.id FROM conversations c
       JOIN messages m ON m.account_id = c.account_id AND m.contact_id = c.contact_id
       WHERE c.account_id = $1 AND c.id = $2 AND m.conversation_id = c.id AND NOT m.outgoing
       ORDER BY m.id DESC LIMIT 1)`,
    [accountId, conversationId],
  );
  return (rowCount ?? 0) > 0;
}

export async function findConversationView(
  db: Queryable,
  accountId: string,
  conversationId: string,
): Promise<ConversationView | undefined> {
  const { rows } = await db.query<ConversationView>(`${VIEW} WHERE c.account_id = $1 AND c.id = $2`, [
    accountId,
    conversationId,
  ]);
  return rows[0];
}

/** A page of conversations, most recent activity first, and how many match in all. */
export async function listConversationViews(
  db: Queryable,
  accountId: string,
  f: ConversationFilter,
  offset: number,
  limit: number,
): Promise<{ rows: ConversationView[]; totalCount: number }> {
  const where = `c.account_id = $1
    AND ($2::uuid IS NULL OR c.contact_id = $2)
    AND ($3::boolean IS NULL OR (c.closed_at IS NOT NULL) = $3)
    AND ($4::boolean IS NULL OR ${UNREAD_EXISTS} = $4)
    AND ($5::boolean IS NULL OR ${INBOUND_EXISTS} = $5)
    AND ($6::text IS NULL OR ${CONTACT_MATCHES})
    AND ($7::uuid IS NULL OR c.assigned_user_id = $7)
    AND ($8::boolean IS NULL OR (c.assigned_user_id IS NULL) = $8)`;
  const pattern = f.q ? `%${f.q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%` : null;
  const args = [
    accountId,
    f.contactId ?? null,
    f.closed ?? null,
    f.unread ?? null,
    f.replied ?? null,
    pattern,
    f.assigneeId ?? null,
    f.unassigned ?? null,
  ];
  const [list, count] = await Promise.all([
    db.query<ConversationView>(
      `${VIEW} WHERE ${where} ORDER BY c.updated_at DESC, c.id DESC OFFSET $9 LIMIT $10`,
      [...args, offset, limit],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM conversations c WHERE ${where}`, args),
  ]);
  return { rows: list.rows, totalCount: count.rows[0].n };
}

/** Contacts by id (the contacts of a page of conversations). */
export async function contactsByIds(
  db: Queryable,
  accountId: string,
  contactIds: string[],
): Promise<ContactRow[]> {
  if (contactIds.length === 0) return [];
  const { rows } = await db.query<ContactRow>(
    'SELECT * FROM contacts WHERE account_id = $1 AND id = ANY($2::uuid[])',
    [accountId, contactIds],
  );
  return rows;
}

/**
 * The sender one contact gets from a pool (docs/routing.md), the rule of the bulk insert
 * (db/queries/message-bulk.ts) for a single text: the pool number of its most recent conversation
 * (sticky), else sparrow_pick_sender over the numbers suitable for its country (`byCountry`, null
 * when all suit), else over the whole pool. `poolIds` in the pool's stable order.
 */
export async function pickContactSender(
  db: Queryable,
  accountId: string,
  contact: { id: string; country: string | null },
  poolIds: string[],
  byCountry: Record<string, string[]> | undefined,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT coalesce(
       (SELECT cv.phone_number_id FROM conversations cv
        WHERE cv.account_id = $1 AND cv.contact_id = $2 AND cv.phone_number_id = ANY($3::uuid[])
        ORDER BY cv.updated_at DESC LIMIT 1),
       sparrow_pick_sender($2, $4, $3::uuid[], $5::jsonb)) AS id`,
    [accountId, contact.id, poolIds, contact.country, byCountry ? JSON.stringify(byCountry) : null],
  );
  return rows[0].id;
}
