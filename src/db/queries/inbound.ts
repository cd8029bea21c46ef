import type { Queryable } from '../client.ts';
import type { ContactRow } from './contacts.ts';
import type { PhoneNumberRow } from './phone-numbers.ts';

/**
 * SQL of the inbound path: routing a carrier's message to the account that holds the number,
 * carrier-retry de-duplication, and the compliance changes a keyword makes to a contact.
 */

/**
 * The active number with this E.164 value, whichever account holds it. Inbound routing is the one
 * lookup that cannot start from an account: the number is what names the account.
 */
export async function findActiveNumberByE164(
  db: Queryable,
  number: string,
): Promise<PhoneNumberRow | undefined> {
  const { rows } = await db.query<PhoneNumberRow>(
    `SELECT * FROM phone_numbers WHERE number = $1 AND status = 'active'`,
    [number],
  );
  return rows[0];
}

/**
 * Serialises deliveries of one provider message id until the transaction ends, so a carrier's
 * retry that arrives while the first copy is still being stored waits and then sees it.
 */
export async function lockInboundProviderId(
  tx: Queryable,
  accountId: string,
  provider: string,
  providerMessageId: string,
) {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
    `inbound:${accountId}:${provider}:${providerMessageId}`,
  ]);
}

/** The inbound message already stored for this provider message id, if any. */
export async function findInboundByProviderId(
  db: Queryable,
  accountId: string,
  provider: string,
  providerMessageId: string,
): Promise<{ id: string; conversation_id: string | null; contact_id: string | null } | undefined> {
  const { rows } = await db.query<{ id: string; conversation_id: string | null; contact_id: string | null }>(
    `SELECT id, conversation_id, contact_id FROM messages
      WHERE account_id = $1 AND provider = $2 AND provider_message_id = $3 AND NOT outgoing`,
    [accountId, provider, providerMessageId],
  );
  return rows[0];
}

/** Inserts a received message (not outgoing, status `received`, unread); answers its id. */
export async function insertInboundMessage(
  tx: Queryable,
  accountId: string,
  m: {
    id: string;
    contactId: string;
    conversationId: string;
    phoneNumberId: string;
    from: string;
    to: string;
    body: string;
    media: { url: string; type?: string }[];
    encoding: string;
    segments: number;
    provider: string;
    providerMessageId: string;
    receivedAt: Date;
    by: object;
  },
): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO messages (account_id, id, contact_id, conversation_id, phone_number_id, from_number, to_number,
       outgoing, body, media, encoding, segments, price, status, provider, provider_message_id, read,
       created_at, created_by, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8, $9, $10, $11, 0, 'received', $12, $13, false, $14, $15, $14)
     RETURNING id`,
    [
      accountId,
      m.id,
      m.contactId,
      m.conversationId,
      m.phoneNumberId,
      m.from,
      m.to,
      m.body,
      JSON.stringify(m.media),
      m.encoding,
      m.segments,
      m.provider,
      m.providerMessageId,
      m.receivedAt,
      m.by,
    ],
  );
  return rows[0].id;
}

/**
 * Opts a contact out (opted_out_at = now, opt_in_at cleared) and marks every list membership opted
 * out. Answers the updated contact, or undefined when it was already opted out (nothing changes).
 */
export async function optOutContact(
  tx: Queryable,
  accountId: string,
  contactId: string,
  by: object,
): Promise<ContactRow | undefined> {
  const { rows } = await tx.query<ContactRow>(
    `UPDATE contacts SET opted_out_at = now(), opt_in_at = NULL, updated_at = now(), updated_by = $3
      WHERE account_id = $1 AND id = $2 AND opted_out_at IS NULL RETURNING *`,
    [accountId, contactId, by],
  );
  if (!rows[0]) return undefined;
  await tx.query(
    `UPDATE list_members SET opt_out_at = now() WHERE account_id = $1 AND contact_id = $2 AND opt_out_at IS NULL`,
    [accountId, contactId],
  );
  return rows[0];
}

/**
 * Opts an opted-out contact back in (opted_out_at cleared, opt_in_at = now) and clears the opt-out
 * of its list memberships. Answers the updated contact, or undefined when it was not opted out.
 */
export async function optInContact(
  tx: Queryable,
  accountId: string,
  contactId: string,
  by: object,
): Promise<ContactRow | undefined> {
  const { rows } = await tx.query<ContactRow>(
    `UPDATE contacts SET opted_out_at = NULL, opt_in_at = now(), updated_at = now(), updated_by = $3
      WHERE account_id = $1 AND id = $2 AND opted_out_at IS NOT NULL RETURNING *`,
    [accountId, contactId, by],
  );
  if (!rows[0]) return undefined;
  await tx.query(
    `UPDATE list_members SET opt_out_at = NULL WHERE account_id = $1 AND contact_id = $2 AND opt_out_at IS NOT NULL`,
    [accountId, contactId],
  );
  return rows[0];
}

/** A contact, locked until the transaction ends (its opt-out state cannot change under us). */
export async function lockContact(
  tx: Queryable,
  accountId: string,
  contactId: string,
): Promise<ContactRow | undefined> {
  const { rows } = await tx.query<ContactRow>(
    'SELECT * FROM contacts WHERE account_id = $1 AND id = $2 FOR UPDATE',
    [accountId, contactId],
  );
  return rows[0];
}

/**
 * Records a contact's confirmation of its pending (double opt-in) list memberships: opt_in_at =
 * now on each membership that has neither an opt-in nor an opt-out. The workflow confirmation
 * trigger (0270) then starts what the list join starts. Answers how many were confirmed.
 */
export async function confirmPendingMemberships(
  tx: Queryable,
  accountId: string,
  contactId: string,
): Promise<number> {
  const { rowCount } = await tx.query(
    `UPDATE list_members SET opt_in_at = now()
      WHERE account_id = $1 AND contact_id = $2 AND opt_in_at IS NULL AND opt_out_at IS NULL`,
    [accountId, contactId],
  );
  return rowCount ?? 0;
}
