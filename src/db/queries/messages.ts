import type { Queryable } from '../client.ts';
import { eventHeard } from './events.ts';
import { numberZonesLateral } from './phone-zones.ts';

/** A message row as stored (inbound and outbound). */
export interface MessageRow {
  account_id: string;
  id: string;
  job_id: string | null;
  campaign_id: string | null;
  contact_id: string | null;
  conversation_id: string | null;
  phone_number_id: string | null;
  from_number: string | null;
  to_number: string | null;
  outgoing: boolean;
  body: string;
  template: string | null;
  media: { url: string; type?: string; name?: string; filename?: string }[];
  encoding: string | null;
  segments: number;
  price: number;
  status: string;
  error: { code: string; description: string } | null;
  provider: string | null;
  /** An inbound message's carrier id (deduplicated by a unique index). */
  provider_message_id: string | null;
  /** An outbound message's carrier id (not indexed: see provider_refs). */
  provider_ref: string | null;
  attempts: number;
  claimed_until: Date | null;
  not_before: Date | null;
  read: boolean;
  system: boolean;
  /** Dispatched by ranges of its send job rather than through the per-message queue. */
  bulk: boolean;
  /** Generated: a non-bulk outgoing message waiting for or in dispatch (queued or sending). */
  queued: boolean;
  submitted_at: Date | null;
  /** Queued owing a lookup at its provider (dispatch/settle-uncertain.ts): when that attempt of unknown fate began. */
  uncertain_since?: Date | null;
  /** The lookups of that attempt that failed so far. */
  lookup_failures?: number;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
}

/** A message with the contact fields its API shape shows. */
export interface MessageView extends MessageRow {
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_email: string | null;
  contact_mobile: string | null;
  /** The Contact's `mobile` object (sparrow_contact_mobile, migration 0210). */
  contact_mobile_object: Record<string, unknown> | null;
}

/**
 * The `data` of `message-sent` and `message-status` events, built from a messages row `m`:
 * `{message: {id, jobId, campaignId, conversation: {id}, phoneNumber, to, outgoing, system,
 * encoding, segments, price, status, error, providerMessageId, provider}, contact: {id, mobile}, status, error}`,
 * `mobile` being the Contact's mobile object (sparrow_contact_mobile, migration 0210); unset fields
 * are left out, never null (sparrow_omit_nulls; the read side is sparrow_event_payload, migration 0365).
 * `provider` is shown where the Message shows it (present-message.ts): an outgoing message with a
 * carrier's id.
 */
export const MESSAGE_EVENT_DATA = `sparrow_omit_nulls(jsonb_build_object(
  'message', sparrow_omit_nulls(jsonb_build_object(
    'id', m.id, 'jobId', m.job_id, 'campaignId', m.campaign_id,
    'conversation', CASE WHEN m.conversation_id IS NOT NULL THEN jsonb_build_object('id', m.conversation_id) END,
    'phoneNumber', m.from_number, 'to', m.to_number, 'outgoing', m.outgoing, 'system', m.system,
    'encoding', m.encoding, 'segments', m.segments, 'price', m.price, 'status', m.status, 'error', m.error,
    'providerMessageId', coalesce(m.provider_ref, m.provider_message_id),
    'provider', CASE WHEN m.outgoing AND coalesce(m.provider_ref, m.provider_message_id) IS NOT NULL THEN m.provider END)),
  'contact', sparrow_omit_nulls(jsonb_build_object(
    'id', m.contact_id, 'mobile', sparrow_contact_mobile(m.account_id, m.contact_id, m.to_number))),
  'status', m.status,
  'error', m.error))`;

/**
 * The stored `data` of a `message-sent` / `message-status` event written in bulk by the dispatcher,
 * from a messages row `m`: a reference to the message with the fields that can still change, as
 * they are now. sparrow_event_payload() (migration 0034; now 0365) turns it into MESSAGE_EVENT_DATA's
 * shape when the event is read (`provider` from the message row: it no longer changes once a
 * carrier's id is recorded).
 */
export const MESSAGE_EVENT_REF = `jsonb_build_object('hydrate', true, 'message', jsonb_build_object(
  'id', m.id, 'status', m.status, 'error', m.error, 'price', m.price,
  'providerMessageId', coalesce(m.provider_ref, m.provider_message_id)))`;

/** The error recorded on a message to a contact that opted out or is blocked. */
export const OPTED_OUT_ERROR = {
  code: 'CONT-010',
  description: 'Contact has requested no further communication.',
};

/**
 * Inserts one outbound message to a contact, priced from the contact's country. A contact that
 * opted out or is blocked gets a failed, uncharged message with CONT-010 (unless `system`).
 * Answers undefined when the contact does not exist in the account.
 */
export async function insertOutboundMessage(
  db: Queryable,
  accountId: string,
  m: {
    id: string;
    contactId: string;
    conversationId: string | null;
    phoneNumberId: string;
    from: string;
    to: string;
    body: string;
    template: string | null;
    media: object[];
    encoding: string;
    segments: number;
    system: boolean;
    jobId?: string | null;
    campaignId?: string | null;
    prices: Record<string, number>;
    by: object;
    /** Not sent for its text (text-rules.ts): recorded failed and uncharged with this error. */
    textError?: { code: string; description: string } | null;
    /** Held by quiet hours in the recipient's zone (the account's when the number does not tell). */
    quietHours?: boolean;
    /** Validity period in seconds: a queued message expires this long after now (messages.expires_at). */
    validity?: number;
  },
): Promise<MessageRow | undefined> {
  const { rows } = await db.query<MessageRow>(
    `WITH c0 AS (
       SELECT c.*, (NOT $13::boolean AND (c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL)) AS opted
       FROM contacts c WHERE c.account_id = $1 AND c.id = $3
     ),
     c AS (
       SELECT c0.*, c0.opted OR $19::jsonb IS NOT NULL AS stopped,
              CASE WHEN c0.opted THEN $15::jsonb ELSE $19::jsonb END AS stop_error
       FROM c0
     )
     INSERT INTO messages (account_id, id, contact_id, conversation_id, phone_number_id, from_number, to_number,
                           outgoing, body, template, media, encoding, segments, price, status, error, system,
                           job_id, campaign_id, created_by, provider, not_before, expires_at)
     SELECT $1, $2, c.id, $4::uuid, $5::uuid, $6::text, $7::text, true, $8::text, $9::text, $10::jsonb, $11::text, $12::int,
            CASE WHEN c.stopped OR $13 THEN 0
                 ELSE sparrow_price($12::int, c.mobile_country, $14::jsonb) END,
            CASE WHEN c.stopped THEN 'failed' ELSE 'queued' END,
            c.stop_error,
            $13, $16::uuid, $17::uuid, $18::jsonb,
            -- The number's provider, recorded now so the claim does not change an indexed column.
            CASE WHEN NOT c.stopped THEN (SELECT n.provider FROM phone_numbers n WHERE n.account_id = $1 AND n.id = $5::uuid) END,
            -- Quiet hours: the one rule of campaigns (0152), for this one recipient.
            CASE WHEN $20::boolean AND NOT c.stopped
                 THEN sparrow_quiet_until(${numberZonesLateral('$7::text')},
                                          (SELECT a.timezone FROM accounts a WHERE a.id = $1), now()) END,
            CASE WHEN NOT c.stopped AND $21::int IS NOT NULL THEN now() + make_interval(secs => $21::int) END
     FROM c
     RETURNING *`,
    [
      accountId,
      m.id,
      m.contactId,
      m.conversationId,
      m.phoneNumberId,
      m.from,
      m.to,
      m.body,
      m.template,
      JSON.stringify(m.media),
      m.encoding,
      m.segments,
      m.system,
      JSON.stringify(m.prices),
      OPTED_OUT_ERROR,
      m.jobId ?? null,
      m.campaignId ?? null,
      m.by,
      m.textError ? JSON.stringify(m.textError) : null,
      m.quietHours ?? false,
      m.validity ?? null,
    ],
  );
  return rows[0];
}

/** Writes one event per given message (set-based), with MESSAGE_EVENT_DATA as its data. */
export async function emitMessageEvents(
  db: Queryable,
  accountId: string,
  type: 'message-sent' | 'message-status',
  messageIds: string[],
): Promise<void> {
  if (messageIds.length === 0) return;
  await db.query(
    `INSERT INTO events (id, account_id, type, data)
     SELECT sparrow_uuidv7(), m.account_id, $2, ${MESSAGE_EVENT_DATA}
     FROM messages m WHERE m.account_id = $1 AND m.id = ANY($3::uuid[]) AND ${eventHeard('$1::uuid', '$2::text')}
     ORDER BY m.id`,
    [accountId, type, messageIds],
  );
}

/** Messages with the contact fields of their API shape. */
// A queued bulk message whose range a dispatcher holds reads as `sending` (its row is not written to claim it).
/** A message's status as the API shows it (messages alias `m`); the job counts read it too. */
export const MESSAGE_STATUS_SQL = `CASE WHEN m.bulk AND m.status = 'queued' AND EXISTS (
                   SELECT 1 FROM dispatch_ranges d WHERE d.account_id = m.account_id AND d.job_id = m.job_id
                     AND m.id BETWEEN d.lo AND d.hi AND d.not_before = coalesce(m.not_before, '-infinity'))
                 THEN 'sending' ELSE m.status END`;

// A bulk message's source text and author are its send job's (migration 0035).
const VIEW = `SELECT m.*, c.first_name AS contact_first_name, c.last_name AS contact_last_name,
                     c.email AS contact_email, c.mobile_number AS contact_mobile, ${MESSAGE_STATUS_SQL} AS status,
                     sparrow_contact_mobile(m.account_id, m.contact_id,
                       coalesce(c.mobile_number, CASE WHEN m.outgoing THEN m.to_number ELSE m.from_number END))
                       AS contact_mobile_object,
                     coalesce(m.template, j.template) AS template, coalesce(m.created_by, j.created_by, '{}') AS created_by
              FROM messages m LEFT JOIN contacts c ON c.account_id = m.account_id AND c.id = m.contact_id
              LEFT JOIN send_jobs j ON m.template IS NULL AND j.account_id = m.account_id AND j.id = m.job_id`;

/** Messages by id in the view of the Message shape (a page of conversations' lastMessage). */
export async function messageViewsByIds(
  db: Queryable,
  accountId: string,
  messageIds: string[],
): Promise<MessageView[]> {
  if (messageIds.length === 0) return [];
  const { rows } = await db.query<MessageView>(`${VIEW} WHERE m.account_id = $1 AND m.id = ANY($2::uuid[])`, [
    accountId,
    messageIds,
  ]);
  return rows;
}

export async function findMessageView(
  db: Queryable,
  accountId: string,
  messageId: string,
): Promise<MessageView | undefined> {
  const { rows } = await db.query<MessageView>(`${VIEW} WHERE m.account_id = $1 AND m.id = $2`, [
    accountId,
    messageId,
  ]);
  return rows[0];
}

/** The first messages of a job, in creation order. */
export async function firstJobMessages(
  db: Queryable,
  accountId: string,
  jobId: string,
  limit: number,
): Promise<MessageView[]> {
  const { rows } = await db.query<MessageView>(
    `${VIEW} WHERE m.account_id = $1 AND m.job_id = $2 ORDER BY m.id LIMIT $3`,
    [accountId, jobId, limit],
  );
  return rows;
}

/** Filters of the message list; undefined means "any". */
export interface MessageFilter {
  contactId?: string;
  conversationId?: string;
  jobId?: string;
  campaignId?: string;
  status?: string;
  from?: Date;
  to?: Date;
}

/**
 * A page of messages, newest first (ids are UUIDv7, so id order is creation order and the primary
 * key serves it), and how many match in all. A conversation's messages are found through its
 * contact's index.
 */
export async function listMessageViews(
  db: Queryable,
  accountId: string,
  f: MessageFilter,
  offset: number,
  limit: number,
): Promise<{ rows: MessageView[]; totalCount: number }> {
  const where = `m.account_id = $1
    AND ($2::uuid IS NULL OR m.contact_id = $2)
    AND ($3::uuid IS NULL OR (m.conversation_id = $3 AND m.contact_id =
         (SELECT cv.contact_id FROM conversations cv WHERE cv.account_id = $1 AND cv.id = $3)))
    AND ($4::uuid IS NULL OR m.job_id = $4)
    AND ($5::uuid IS NULL OR m.campaign_id = $5)
    AND ($6::text IS NULL OR ${MESSAGE_STATUS_SQL} = $6)
    AND ($7::timestamptz IS NULL OR m.created_at >= $7)
    AND ($8::timestamptz IS NULL OR m.created_at < $8)`;
  const args = [
    accountId,
    f.contactId ?? null,
    f.conversationId ?? null,
    f.jobId ?? null,
    f.campaignId ?? null,
    f.status ?? null,
    f.from ?? null,
    f.to ?? null,
  ];
  const [list, count] = await Promise.all([
    db.query<MessageView>(`${VIEW} WHERE ${where} ORDER BY m.id DESC OFFSET $9 LIMIT $10`, [
      ...args,
      offset,
      limit,
    ]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages m WHERE ${where}`, args),
  ]);
  return { rows: list.rows, totalCount: count.rows[0].n };
}

/** Which of these conversation ids exist in the account. */
export async function existingConversationIds(
  db: Queryable,
  accountId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM conversations WHERE account_id = $1 AND id = ANY($2::uuid[])',
    [accountId, ids],
  );
  return new Set(rows.map((r) => r.id));
}
