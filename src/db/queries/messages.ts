import type { TemplatePart } from '../../messaging/render.ts';
import type { Queryable } from '../client.ts';
import { type AttributeCondition, type ListRow, listMemberCondition } from './lists.ts';

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
  provider_message_id: string | null;
  attempts: number;
  claimed_until: Date | null;
  not_before: Date | null;
  read: boolean;
  system: boolean;
  /** Generated: an outgoing message waiting for or in dispatch (queued or sending). */
  queued: boolean;
  submitted_at: Date | null;
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
}

/**
 * The `data` of `message-sent` and `message-status` events, built from a messages row `m`:
 * `{message: {id, jobId, campaignId, conversation: {id}, phoneNumber, to, outgoing, system,
 * encoding, segments, price, status, error, providerMessageId}, contact: {id, mobile}, status, error}`.
 */
export const MESSAGE_EVENT_DATA = `jsonb_build_object(
  'message', jsonb_build_object(
    'id', m.id, 'jobId', m.job_id, 'campaignId', m.campaign_id,
    'conversation', jsonb_build_object('id', m.conversation_id),
    'phoneNumber', m.from_number, 'to', m.to_number, 'outgoing', m.outgoing, 'system', m.system,
    'encoding', m.encoding, 'segments', m.segments, 'price', m.price, 'status', m.status, 'error', m.error,
    'providerMessageId', m.provider_message_id),
  'contact', jsonb_build_object('id', m.contact_id, 'mobile', m.to_number),
  'status', m.status,
  'error', m.error)`;

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
  },
): Promise<MessageRow | undefined> {
  const { rows } = await db.query<MessageRow>(
    `WITH c AS (
       SELECT c.*, (NOT $13::boolean AND (c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL)) AS stopped
       FROM contacts c WHERE c.account_id = $1 AND c.id = $3
     )
     INSERT INTO messages (account_id, id, contact_id, conversation_id, phone_number_id, from_number, to_number,
                           outgoing, body, template, media, encoding, segments, price, status, error, system,
                           job_id, campaign_id, created_by, provider)
     SELECT $1, $2, c.id, $4::uuid, $5::uuid, $6::text, $7::text, true, $8::text, $9::text, $10::jsonb, $11::text, $12::int,
            CASE WHEN c.stopped OR $13 THEN 0
                 ELSE round($12::int * coalesce(($14::jsonb ->> upper(c.mobile_country))::numeric,
                                           ($14::jsonb ->> 'default')::numeric), 4) END,
            CASE WHEN c.stopped THEN 'failed' ELSE 'queued' END,
            CASE WHEN c.stopped THEN $15::jsonb END,
            $13, $16::uuid, $17::uuid, $18::jsonb,
            -- The number's provider, recorded now so the claim does not change an indexed column.
            CASE WHEN NOT c.stopped THEN (SELECT n.provider FROM phone_numbers n WHERE n.account_id = $1 AND n.id = $5::uuid) END
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
     FROM messages m WHERE m.account_id = $1 AND m.id = ANY($3::uuid[])
     ORDER BY m.id`,
    [accountId, type, messageIds],
  );
}

/** One receipt to apply: a provider's status for one of its message ids. */
export interface ReceiptInput {
  provider: string;
  providerMessageId: string;
  status: 'sent' | 'delivered' | 'undelivered' | 'failed';
  error: { code: string; description: string } | null;
  at: Date;
}

/**
 * Applies receipts set-based across accounts (receipts name the provider's ids, not accounts):
 * a message moves only to a higher-ranked status, and each change writes a `message-status`
 * event. Receipts for ids not recorded yet are parked in early_receipts. Answers how many
 * messages changed.
 */
export async function applyReceipts(db: Queryable, receipts: ReceiptInput[]): Promise<number> {
  if (receipts.length === 0) return 0;
  const { rows } = await db.query<{ changed: number }>(
    `WITH u AS (
       -- Each receipt's message, looked up by its provider id (one index probe per receipt).
       SELECT u.*, hit.account_id, hit.id
       FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[]) AS u(provider, pmid, status, error, at)
       LEFT JOIN LATERAL (
         SELECT m.account_id, m.id FROM messages m
         WHERE m.provider = u.provider AND m.provider_message_id = u.pmid AND m.outgoing LIMIT 1
       ) hit ON true
     ), upd AS (
       UPDATE messages m SET
         status = u.status,
         error = CASE WHEN u.status IN ('failed', 'undelivered') THEN coalesce(u.error, m.error) ELSE m.error END,
         sent_at = coalesce(m.sent_at, u.at),
         delivered_at = CASE WHEN u.status = 'delivered' THEN u.at ELSE m.delivered_at END,
         updated_at = now()
       FROM u
       WHERE m.account_id = u.account_id AND m.id = u.id
         AND sparrow_status_rank(u.status) > sparrow_status_rank(m.status)
       RETURNING m.*
     ), ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA} FROM upd m
     ), early AS (
       INSERT INTO early_receipts (provider, provider_message_id, status, error, at)
       SELECT u.provider, u.pmid, u.status, u.error, u.at FROM u WHERE u.id IS NULL
       ON CONFLICT DO NOTHING
     )
     SELECT count(*)::int AS changed FROM upd`,
    [
      receipts.map((r) => r.provider),
      receipts.map((r) => r.providerMessageId),
      receipts.map((r) => r.status),
      receipts.map((r) => (r.error ? JSON.stringify(r.error) : null)),
      receipts.map((r) => r.at),
    ],
  );
  return rows[0].changed;
}

/** Removes and answers the parked receipts whose message id is now recorded; drops those over an hour old. */
export async function takeEarlyReceipts(db: Queryable, limit = 5000): Promise<ReceiptInput[]> {
  await db.query(`DELETE FROM early_receipts WHERE received_at < now() - interval '1 hour'`);
  const { rows } = await db.query<{
    provider: string;
    provider_message_id: string;
    status: ReceiptInput['status'];
    error: ReceiptInput['error'];
    at: Date;
  }>(
    `DELETE FROM early_receipts e
     WHERE (e.provider, e.provider_message_id, e.status) IN (
       SELECT e2.provider, e2.provider_message_id, e2.status FROM early_receipts e2
       WHERE EXISTS (SELECT 1 FROM messages m WHERE m.provider = e2.provider
                     AND m.provider_message_id = e2.provider_message_id AND m.outgoing)
       LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING e.provider, e.provider_message_id, e.status, e.error, e.at`,
    [limit],
  );
  return rows.map((r) => ({
    provider: r.provider,
    providerMessageId: r.provider_message_id,
    status: r.status,
    error: r.error,
    at: r.at,
  }));
}

/**
 * Settles the jobs of finished messages, from a CTE `fin(account_id, job_id, n, nf, amount)`:
 * n messages left the queue (sent or failed), nf of them failed and `amount` was refunded.
 * A job whose pending count reaches zero is `completed`.
 */
const JOB_SETTLE = `UPDATE send_jobs j SET failures = j.failures + f.nf, price = j.price - f.amount,
         pending = j.pending - f.n, status = CASE WHEN j.pending - f.n <= 0 THEN 'completed' ELSE 'sending' END
       FROM fin f WHERE j.account_id = f.account_id AND j.id = f.job_id`;

/** A message eligible for dispatch, locked by the claim transaction. */
export interface DispatchCandidate {
  account_id: string;
  id: string;
  phone_number_id: string | null;
  system: boolean;
  /** The contact opted out or is blocked since the message was queued. */
  stopped: boolean;
  number_active: boolean;
  provider: string | null;
  throughput_mps: number | null;
}

/**
 * Locks up to `limit` messages due for dispatch (queued and past not_before, or sending with an
 * expired claim: a worker died holding it), oldest first, skipping rows other workers hold and
 * messages of numbers whose current one-second window is used up. Call inside a transaction.
 */
export async function lockDispatchCandidates(
  db: Queryable,
  limit: number,
  exhaustedNumberIds: string[],
): Promise<DispatchCandidate[]> {
  // The queue is read in id order straight from the messages_dispatch index (a sort would read every
  // queued row: with statistics taken before a bulk send the planner believes the queue is tiny).
  await db.query('SET LOCAL enable_sort = off');
  const { rows } = await db.query<DispatchCandidate>(
    `WITH q AS (
       SELECT m.account_id, m.id, m.phone_number_id, m.contact_id, m.system
       FROM messages m
       WHERE m.queued
         AND ((m.status = 'queued' AND (m.not_before IS NULL OR m.not_before <= now()))
              OR (m.status = 'sending' AND m.claimed_until < now()))
         AND (cardinality($2::uuid[]) = 0 OR m.phone_number_id IS NULL OR m.phone_number_id <> ALL($2::uuid[]))
       ORDER BY m.id
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     )
     SELECT q.account_id, q.id, q.phone_number_id, q.system,
            coalesce(c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL, false) AS stopped,
            coalesce(n.status = 'active', false) AS number_active, n.provider, n.throughput_mps
     FROM q
     LEFT JOIN contacts c ON c.account_id = q.account_id AND c.id = q.contact_id
     LEFT JOIN phone_numbers n ON n.account_id = q.account_id AND n.id = q.phone_number_id`,
    [limit, exhaustedNumberIds],
  );
  await db.query('SET LOCAL enable_sort = on');
  return rows;
}

/** What the dispatcher hands to a provider for one claimed message. */
export interface ClaimedMessage {
  account_id: string;
  id: string;
  attempts: number;
  from_number: string;
  to_number: string;
  body: string;
  encoding: 'GSM-7' | 'UCS-2';
  segments: number;
  media: { url: string }[];
  provider: string;
}

/**
 * Marks locked candidates as `sending` under a 30-second claim: attempts + 1 (the submission key
 * is (id, attempts)), the provider chosen, submitted_at = the claim time the rate window counted.
 */
export async function claimMessages(
  db: Queryable,
  claims: { accountId: string; id: string; provider: string }[],
  leaseSeconds = 30,
): Promise<ClaimedMessage[]> {
  if (claims.length === 0) return [];
  const { rows } = await db.query<ClaimedMessage>(
    `UPDATE messages m SET status = 'sending', attempts = m.attempts + 1, provider = k.provider,
            claimed_until = now() + make_interval(secs => $4), submitted_at = now(), updated_at = now()
     FROM unnest($1::uuid[], $2::uuid[], $3::text[]) AS k(account_id, id, provider)
     WHERE m.account_id = k.account_id AND m.id = k.id
     RETURNING m.account_id, m.id, m.attempts, m.from_number, m.to_number, m.body, m.encoding, m.segments,
               m.media, m.provider`,
    [claims.map((c) => c.accountId), claims.map((c) => c.id), claims.map((c) => c.provider), leaseSeconds],
  );
  return rows;
}

/** The outcome of one submission, as the dispatcher records it. */
export interface SubmissionOutcome {
  accountId: string;
  id: string;
  attempt: number;
  /** sent: accepted; retry: back to the queue after `retryAfterSeconds`; failed: final. */
  outcome: 'sent' | 'retry' | 'failed';
  provider: string | null;
  providerMessageId: string | null;
  error: { code: string; description: string } | null;
  retryAfterSeconds: number;
}

/**
 * Records submission outcomes set-based, only for messages still `sending` under the same attempt
 * (a claim that expired and was taken over is not overwritten). In the same statement: a final
 * failure refunds its price to the account and its job, `message-sent` is emitted for accepted
 * messages and `message-status` for failures. Answers the counts recorded.
 */
export async function recordSubmissions(
  db: Queryable,
  outcomes: SubmissionOutcome[],
): Promise<{ sent: number; retried: number; failed: number }> {
  if (outcomes.length === 0) return { sent: 0, retried: 0, failed: 0 };
  const { rows } = await db.query<{ sent: number; retried: number; failed: number }>(
    `WITH r AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::int[])
         AS r(account_id, id, attempt, outcome, provider, pmid, error, retry_after)
     ), upd AS (
       UPDATE messages m SET
         status = CASE r.outcome WHEN 'sent' THEN 'sent' WHEN 'retry' THEN 'queued' ELSE 'failed' END,
         provider = coalesce(r.provider, m.provider),
         provider_message_id = CASE WHEN r.outcome = 'sent' THEN r.pmid ELSE m.provider_message_id END,
         sent_at = CASE WHEN r.outcome = 'sent' THEN now() ELSE m.sent_at END,
         error = CASE WHEN r.outcome = 'sent' THEN NULL ELSE r.error END,
         not_before = CASE WHEN r.outcome = 'retry' THEN now() + make_interval(secs => r.retry_after) END,
         claimed_until = NULL,
         price = CASE WHEN r.outcome = 'failed' THEN 0 ELSE m.price END,
         updated_at = now()
       -- o is the row as it was before this statement (PostgreSQL < 18 has no RETURNING old.*).
       FROM r JOIN messages o ON o.account_id = r.account_id AND o.id = r.id
       WHERE m.account_id = r.account_id AND m.id = r.id AND m.status = 'sending' AND m.attempts = r.attempt
       RETURNING m.*, o.price AS old_price
     ), fin AS (
       SELECT account_id, job_id, count(*) AS n, count(*) FILTER (WHERE status = 'failed') AS nf,
              coalesce(sum(old_price) FILTER (WHERE status = 'failed'), 0) AS amount
       FROM upd WHERE status IN ('sent', 'failed') GROUP BY account_id, job_id
     ), acct AS (
       UPDATE accounts a SET balance = a.balance + s.amount, updated_at = now()
       FROM (SELECT account_id, sum(amount) AS amount FROM fin GROUP BY account_id) s
       WHERE a.id = s.account_id AND s.amount > 0
     ), job AS (
       ${JOB_SETTLE}
     ), ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, CASE WHEN m.status = 'sent' THEN 'message-sent' ELSE 'message-status' END,
              ${MESSAGE_EVENT_DATA}
       FROM upd m WHERE m.status IN ('sent', 'failed') ORDER BY m.id
     )
     SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent,
            count(*) FILTER (WHERE status = 'queued')::int AS retried,
            count(*) FILTER (WHERE status = 'failed')::int AS failed
     FROM upd`,
    [
      outcomes.map((o) => o.accountId),
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.attempt),
      outcomes.map((o) => o.outcome),
      outcomes.map((o) => o.provider),
      outcomes.map((o) => o.providerMessageId),
      outcomes.map((o) => (o.error ? JSON.stringify(o.error) : null)),
      outcomes.map((o) => o.retryAfterSeconds),
    ],
  );
  return rows[0];
}

/**
 * Fails locked candidates that must not be sent (the contact opted out or was blocked after the
 * message was queued; the number is gone), refunding their price and emitting `message-status`.
 */
export async function failCandidates(
  db: Queryable,
  failures: { accountId: string; id: string; error: { code: string; description: string } }[],
): Promise<void> {
  if (failures.length === 0) return;
  await db.query(
    `WITH r AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::jsonb[]) AS r(account_id, id, error)
     ), upd AS (
       UPDATE messages m SET status = 'failed', error = r.error, price = 0, claimed_until = NULL, updated_at = now()
       FROM r JOIN messages o ON o.account_id = r.account_id AND o.id = r.id
       WHERE m.account_id = r.account_id AND m.id = r.id AND m.status IN ('queued', 'sending')
       RETURNING m.*, o.price AS old_price
     ), fin AS (
       SELECT account_id, job_id, count(*) AS n, count(*) AS nf, sum(old_price) AS amount
       FROM upd GROUP BY account_id, job_id
     ), acct AS (
       UPDATE accounts a SET balance = a.balance + s.amount, updated_at = now()
       FROM (SELECT account_id, sum(amount) AS amount FROM fin GROUP BY account_id) s
       WHERE a.id = s.account_id AND s.amount > 0
     ), job AS (
       ${JOB_SETTLE}
     )
     INSERT INTO events (id, account_id, type, data)
     SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA} FROM upd m ORDER BY m.id`,
    [
      failures.map((f) => f.accountId),
      failures.map((f) => f.id),
      failures.map((f) => JSON.stringify(f.error)),
    ],
  );
}

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
export function renderSql(parts: TemplatePart[], params: unknown[]): string {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}::text`;
  };
  if (parts.length === 0) return "''::text";
  const pieces = parts.map((p) => {
    if (p.kind === 'text') return add(p.text);
    if (p.kind === 'field') return FIELD_SQL[p.field];
    return `(c.attributes ->> ${add(p.name)})`;
  });
  return `concat(${pieces.join(', ')})`;
}

/** Renders a template for contacts by id with renderSql (to prove SQL and TypeScript agree). */
export async function renderForContacts(
  db: Queryable,
  accountId: string,
  parts: TemplatePart[],
  contactIds: string[],
): Promise<{ id: string; body: string; encoding: string; units: number; segments: number }[]> {
  const params: unknown[] = [accountId, contactIds];
  const expr = renderSql(parts, params);
  const { rows } = await db.query(
    `SELECT id, body, sparrow_encoding(body) AS encoding, sparrow_units(body) AS units, sparrow_segments(body) AS segments
     FROM (SELECT c.id, ${expr} AS body FROM contacts c WHERE c.account_id = $1 AND c.id = ANY($2::uuid[])) x`,
    params,
  );
  return rows;
}

/** Who a bulk send goes to: each source optional; a contact named by several gets one message. */
export interface RecipientSpec {
  /** Existing contacts by id (already checked to exist). */
  contactIds: string[];
  /** Conversations by id (already checked to exist): their contact, from their number. */
  conversationIds: string[];
  /** Contacts matching every given condition; `all` with no condition means every contact. */
  filter?: { tags: string[]; attributes: AttributeCondition[]; list?: Pick<ListRow, 'id' | 'filter'> };
}

/** A bulk send, as the statement inserting its messages needs it. */
export interface JobMessagesSpec {
  jobId: string;
  campaignId: string | null;
  recipients: RecipientSpec;
  /** The group's sending numbers, in a stable order (sticky choice hashes into it). */
  pool: { id: string; number: string }[];
  template: string;
  parts: TemplatePart[];
  /** Encoding and segments when the text is the same for everyone (no merge field); else computed per row in SQL. */
  fixed?: { body: string; encoding: string; segments: number };
  media: object[];
  prices: Record<string, number>;
  by: object;
}

/** Counts of a bulk insert. */
export interface JobMessagesResult {
  queued: number;
  failed: number;
  price: number;
}

function recipientsSql(r: RecipientSpec, params: unknown[]): string {
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
    for (const tag of r.filter.tags) where.push(`c.tags @> ${add(JSON.stringify([{ tag }]))}::jsonb`);
    if (r.filter.attributes.length > 0) {
      where.push(
        listMemberCondition(
          { id: '00000000-0000-0000-0000-000000000000', filter: { attributes: r.filter.attributes } },
          params,
        ),
      );
    }
    if (r.filter.list) where.push(listMemberCondition(r.filter.list, params));
    sources.push(
      `SELECT c.id AS contact_id, NULL::uuid AS forced_number_id, 2 AS pri FROM contacts c WHERE ${where.join(' AND ')}`,
    );
  }
  if (sources.length === 1) return sources[0];
  // A contact named by several sources gets one message; a conversation's number wins.
  return `SELECT DISTINCT ON (contact_id) contact_id, forced_number_id, pri
          FROM (${sources.join(' UNION ALL ')}) s ORDER BY contact_id, pri`;
}

/**
 * Inserts a bulk send's messages in ONE statement (INSERT … SELECT over the recipients; nothing
 * per recipient crosses to Node): renders the template per contact, counts segments, prices by
 * country, picks each contact's sender (sticky: its existing conversation with a pool number,
 * else a stable hash of its id over the pool), upserts the (contact, number) conversations with
 * `conversation-started` for new ones, and records contacts with no valid mobile (CONT-001) or that
 * opted out or are blocked (CONT-010) as failed, unpriced messages with a `message-status` event.
 */
export async function insertJobMessages(
  db: Queryable,
  accountId: string,
  spec: JobMessagesSpec,
): Promise<JobMessagesResult> {
  const params: unknown[] = [accountId];
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const recipients = recipientsSql(spec.recipients, params);
  const body = spec.fixed ? `${add(spec.fixed.body)}::text` : renderSql(spec.parts, params);
  const poolIds = add(spec.pool.map((p) => p.id));
  const poolNumbers = add(spec.pool.map((p) => p.number));
  const prices = add(JSON.stringify(spec.prices));
  const by = add(JSON.stringify(spec.by));
  const job = add(spec.jobId);
  const campaign = add(spec.campaignId);
  const template = add(spec.template);
  const media = add(JSON.stringify(spec.media));
  const optedOut = add(JSON.stringify(OPTED_OUT_ERROR));
  const invalid = add(JSON.stringify({ code: 'CONT-001', description: 'Invalid mobile number.' }));
  // Per row, the GSM-7 test and the unit count run once each (sparrow_segments would repeat them).
  const encoding = spec.fixed
    ? `${add(spec.fixed.encoding)}::text`
    : "CASE WHEN g.gsm THEN 'GSM-7' ELSE 'UCS-2' END";
  const segments = spec.fixed
    ? `${add(spec.fixed.segments)}::int`
    : `CASE WHEN g.gsm THEN CASE WHEN g.units <= 160 THEN 1 ELSE ceil(g.units / 153.0)::int END
            ELSE CASE WHEN g.units <= 70 THEN 1 ELSE ceil(g.units / 67.0)::int END END`;
  const units = spec.fixed
    ? ''
    : `CROSS JOIN LATERAL (SELECT gsm, CASE WHEN gsm THEN
           2 * length(x.body) - length(regexp_replace(x.body, '[\\u005E{}\\u005C\\u005B~\\u005D|€\\u000C]', '', 'g'))
         ELSE 2 * length(x.body) - length(regexp_replace(x.body, '[\\U00010000-\\U0010FFFF]', '', 'g')) END AS units
         FROM (SELECT sparrow_is_gsm7(x.body) AS gsm) g0) g`;

  // The statement holds every recipient in a few CTEs: kept in memory rather than spilled to disk.
  await db.query(`SELECT set_config('work_mem', '64MB', true)`);

  const { rows } = await db.query<JobMessagesResult>(
    `WITH r AS (${recipients}),
     x AS (
       SELECT sparrow_uuidv7() AS id, c.id AS contact_id, c.mobile_number, c.mobile_country,
              CASE WHEN c.mobile_number IS NULL OR NOT c.mobile_valid THEN ${invalid}::jsonb
                   WHEN c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL THEN ${optedOut}::jsonb END AS error,
              coalesce(r.forced_number_id, sticky.phone_number_id,
                       (${poolIds}::uuid[])[1 + (abs(hashtext(c.id::text)::bigint) % cardinality(${poolIds}::uuid[]))]) AS number_id,
              ${body} AS body
       FROM r
       JOIN contacts c ON c.account_id = $1 AND c.id = r.contact_id
       LEFT JOIN LATERAL (
         SELECT cv.phone_number_id FROM conversations cv
         WHERE r.forced_number_id IS NULL AND cv.account_id = $1 AND cv.contact_id = c.id
           AND cv.phone_number_id = ANY(${poolIds}::uuid[])
         ORDER BY cv.updated_at DESC LIMIT 1
       ) sticky ON true
     ),
     y AS (
       SELECT x.*, ${encoding} AS encoding, ${segments} AS segments, pn.provider,
              coalesce(pn.number, (${poolNumbers}::text[])[array_position(${poolIds}::uuid[], x.number_id)]) AS from_number
       FROM x
       LEFT JOIN phone_numbers pn ON pn.account_id = $1 AND pn.id = x.number_id
       ${units}
     ),
     conv AS (
       INSERT INTO conversations AS cv (account_id, id, contact_id, phone_number_id, last_message_id, created_by, updated_by)
       SELECT $1, sparrow_uuidv7(), y.contact_id, y.number_id, y.id, ${by}::jsonb, ${by}::jsonb FROM y WHERE y.error IS NULL
       ON CONFLICT (account_id, contact_id, phone_number_id)
         DO UPDATE SET last_message_id = EXCLUDED.last_message_id, updated_at = now()
       RETURNING cv.id, cv.contact_id, cv.phone_number_id, (cv.xmax = 0) AS created
     ),
     ins AS (
       INSERT INTO messages (account_id, id, job_id, campaign_id, contact_id, conversation_id, phone_number_id,
                             from_number, to_number, outgoing, body, template, media, encoding, segments, price,
                             status, error, created_by, provider)
       SELECT $1, y.id, ${job}::uuid, ${campaign}::uuid, y.contact_id, conv.id, y.number_id, y.from_number,
              y.mobile_number, true, y.body, ${template}, ${media}::jsonb, y.encoding, y.segments,
              CASE WHEN y.error IS NULL
                   THEN round(y.segments * coalesce((${prices}::jsonb ->> upper(y.mobile_country))::numeric,
                                                    (${prices}::jsonb ->> 'default')::numeric), 4)
                   ELSE 0 END,
              CASE WHEN y.error IS NULL THEN 'queued' ELSE 'failed' END, y.error, ${by}::jsonb,
              -- The number's provider, recorded now so the claim does not change an indexed column.
              CASE WHEN y.error IS NULL THEN y.provider END
       FROM y LEFT JOIN conv ON conv.contact_id = y.contact_id AND conv.phone_number_id = y.number_id
       RETURNING status, price
     ),
     started AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), $1, 'conversation-started',
              jsonb_build_object('conversation', jsonb_build_object(
                'id', conv.id, 'contact', jsonb_build_object('id', conv.contact_id),
                'phoneNumber', (${poolNumbers}::text[])[array_position(${poolIds}::uuid[], conv.phone_number_id)],
                'closed', false), 'reopened', false)
       FROM conv WHERE conv.created
     ),
     failed AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA}
       FROM (SELECT $1::uuid AS account_id, y.id, ${job}::uuid AS job_id, ${campaign}::uuid AS campaign_id,
                    NULL::uuid AS conversation_id, y.from_number, y.mobile_number AS to_number, true AS outgoing,
                    false AS system, y.encoding, y.segments, 0::numeric AS price, 'failed' AS status, y.error,
                    NULL::text AS provider_message_id, y.contact_id
             FROM y WHERE y.error IS NOT NULL) m
     )
     SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            coalesce(sum(price), 0)::float8 AS price
     FROM ins`,
    params,
  );
  return rows[0];
}

/** Records messages to numbers that are not valid (no contact): failed with CONT-001, unpriced. */
export async function insertInvalidNumberMessages(
  db: Queryable,
  accountId: string,
  m: {
    jobId: string;
    campaignId: string | null;
    from: string;
    template: string;
    body: string;
    numbers: string[];
    by: object;
  },
): Promise<number> {
  if (m.numbers.length === 0) return 0;
  const { rowCount } = await db.query(
    `WITH ins AS (
       INSERT INTO messages (account_id, id, job_id, campaign_id, from_number, to_number, outgoing, body, template,
                             encoding, segments, status, error, created_by)
       SELECT $1, sparrow_uuidv7(), $2, $3, $4, t.n, true, $5, $6, NULL, 0, 'failed',
              jsonb_build_object('code', 'CONT-001', 'description', 'Invalid mobile number.'), $7
       FROM unnest($8::text[]) AS t(n)
       RETURNING *
     )
     INSERT INTO events (id, account_id, type, data)
     SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA} FROM ins m`,
    [accountId, m.jobId, m.campaignId, m.from, m.body, m.template, m.by, m.numbers],
  );
  return rowCount ?? 0;
}

/** Messages with the contact fields of their API shape. */
const VIEW = `SELECT m.*, c.first_name AS contact_first_name, c.last_name AS contact_last_name,
                     c.email AS contact_email, c.mobile_number AS contact_mobile
              FROM messages m LEFT JOIN contacts c ON c.account_id = m.account_id AND c.id = m.contact_id`;

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

/** A page of messages, newest first, and how many match in all. */
export async function listMessageViews(
  db: Queryable,
  accountId: string,
  f: MessageFilter,
  offset: number,
  limit: number,
): Promise<{ rows: MessageView[]; totalCount: number }> {
  const where = `m.account_id = $1
    AND ($2::uuid IS NULL OR m.contact_id = $2)
    AND ($3::uuid IS NULL OR m.conversation_id = $3)
    AND ($4::uuid IS NULL OR m.job_id = $4)
    AND ($5::uuid IS NULL OR m.campaign_id = $5)
    AND ($6::text IS NULL OR m.status = $6)
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
    db.query<MessageView>(
      `${VIEW} WHERE ${where} ORDER BY m.created_at DESC, m.id DESC OFFSET $9 LIMIT $10`,
      [...args, offset, limit],
    ),
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
