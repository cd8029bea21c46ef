/** SQL of the bulk send: the set-based message insert (recipients: recipients.ts; merge fields: render-sql.ts). */

import { createHash } from 'node:crypto';
import { ERRORS } from '../../errors.ts';
import type { TemplatePart } from '../../messaging/render.ts';
import { countSegments } from '../../messaging/segments.ts';
import { suitableSenders } from '../../messaging/senders.ts';
import { textErrorSql } from '../../messaging/text-rules.ts';
import type { Queryable } from '../client.ts';
import { eventHeard } from './events.ts';
import { MESSAGE_EVENT_DATA, OPTED_OUT_ERROR } from './messages.ts';
import { numberZonesLateral } from './phone-zones.ts';
import { type RecipientSpec, recipientsSql } from './recipients.ts';
import { renderSql } from './render-sql.ts';

/** The `error` of a message to a number that is not a valid mobile: CONT-001 and its one text. */
const INVALID_NUMBER_ERROR = JSON.stringify({ code: 'CONT-001', description: ERRORS['CONT-001'].message });

/** Rows of a per-row batch that the default work_mem holds (a few hundred bytes each in each CTE). */
const SMALL_BATCH = 2000;

/** A bulk send, as the statement inserting its messages needs it. */
export interface JobMessagesSpec {
  jobId: string;
  campaignId: string | null;
  recipients: RecipientSpec;
  /**
   * The group's sending numbers, in a stable order (sticky choice hashes into it), with the
   * country of each and the destination countries it can send to (a suitable sender).
   */
  pool: { id: string; number: string; country?: string; destinations?: string[] }[];
  /** The template, its text parts already smart-encoded when `smart` (encodeText). */
  parts: TemplatePart[];
  /** Smart encoding: merged-in values are encoded in SQL (sparrow_smart_encode) as they are rendered. */
  smart?: boolean;
  /** Validity period in seconds: each queued message expires this long after now (messages.expires_at). */
  validity?: number;
  /** Encoding and segments when the text is the same for everyone (no merge field); else computed per row in SQL. */
  fixed?: { body: string; encoding: string; segments: number };
  media: object[];
  prices: Record<string, number>;
  by: object;
  /**
   * One message per entry, in this order, each with its own id and literal text (an SMPP batch:
   * many submissions in one job): replaces `recipients` (a contact may appear more than once),
   * `parts` and `fixed`; encoding and segments are counted per row, and each row keeps its text as
   * its template (the job's is only the first one's).
   */
  rows?: { ids: string[]; contactIds: string[]; bodies: string[] } | RowsByNumber;
  /**
   * False: no conversation is opened or touched (an SMPP client's submissions: a relay's recipient
   * gets a conversation when it replies, as any inbound text opens one); the messages have none.
   */
  openConversations?: boolean;
  /**
   * Quiet hours (a marketing send): each message is held until 8:00 in its recipient's time zone
   * when it is sent between 21:00 and 8:00 there (sparrow_quiet_until, migration 0152); `fallbackZone`
   * (the account's) serves numbers whose zone is unknown or too wide.
   */
  quiet?: { fallbackZone: string };
}

/**
 * Per-row messages whose contacts are found by number in a relation of the same statement
 * (`contactsFrom`: a CTE with the columns of contacts the insert reads: id, mobile_number,
 * mobile_country, mobile_valid, opted_out_at, blocked_at), instead of by id in `contacts`: an SMPP
 * batch that creates its recipients' contacts in the statement that inserts their messages. A row
 * whose number is not in it has no message (the caller compares the count).
 */
export interface RowsByNumber {
  ids: string[];
  numbers: string[];
  bodies: string[];
  contactsFrom: string;
}

/** Counts of a bulk insert. */
export interface JobMessagesResult {
  queued: number;
  failed: number;
  price: number;
  /** The distinct holds of the queued messages (null: none). */
  holds: (Date | null)[];
}

/**
 * Inserts a bulk send's messages in ONE statement (INSERT … SELECT over the recipients; nothing
 * per recipient crosses to Node): renders the template per contact, counts segments, prices by
 * country, picks each contact's sender (sticky: its existing conversation with a pool number,
 * else a stable hash of its id over the pool), upserts the (contact, number) conversations (unless `openConversations` is false) with
 * `conversation-started` for new ones, and records contacts with no valid mobile (CONT-001) or that
 * opted out or are blocked (CONT-010), and texts that render empty without media (MSG-004) or over
 * the cap (MSG-005), as failed, unpriced messages with a `message-status` event.
 */
export async function insertJobMessages(
  db: Queryable,
  accountId: string,
  spec: JobMessagesSpec,
): Promise<JobMessagesResult> {
  const params: unknown[] = [accountId];
  const { ctes, counts } = jobMessagesSql(spec, params);
  // The statement holds every recipient in a few CTEs: kept in memory rather than spilled to disk.
  // A batch of rows (an SMPP window) fits the default and saves the round trip.
  if (!spec.rows || spec.rows.ids.length > SMALL_BATCH)
    await db.query(`SELECT set_config('work_mem', '64MB', true)`);
  const text = `WITH ${ctes} ${counts}`;
  // A batch of rows (an SMPP window) is the same statement every time: prepared once per
  // connection, its plan is reused instead of made again for each batch (about 1 ms).
  const { rows } = await db.query<JobMessagesResult>(
    spec.rows ? { name: preparedName('job-rows', text), text, values: params } : { text, values: params },
  );
  return rows[0];
}

/** A prepared statement's name for a statement text built at run time (the same text, the same name). */
export function preparedName(prefix: string, text: string): string {
  return `${prefix}-${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}

/**
 * The statement of insertJobMessages as its parts: `ctes` (the recipients, the messages' insert as
 * CTE \`ins\` returning status, price and not_before, their events) and `counts` (the final SELECT of
 * the counts), over `params` whose first is the account id: so that a statement of its own (an SMPP
 * batch) can put the same insert between CTEs of its own.
 */
export function jobMessagesSql(spec: JobMessagesSpec, params: unknown[]): { ctes: string; counts: string } {
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const perRow = spec.rows;
  const byNumber = perRow && 'contactsFrom' in perRow ? perRow : undefined;
  const recipients = byNumber
    ? `SELECT cs.id AS contact_id, NULL::uuid AS forced_number_id, 1 AS pri, t.id AS row_id, t.body AS row_body
       FROM unnest(${add(byNumber.ids)}::uuid[], ${add(byNumber.numbers)}::text[], ${add(byNumber.bodies)}::text[]) AS t(id, number, body)
       JOIN ${byNumber.contactsFrom} cs ON cs.mobile_number = t.number`
    : perRow && 'contactIds' in perRow
      ? `SELECT t.contact_id, NULL::uuid AS forced_number_id, 1 AS pri, t.id AS row_id, t.body AS row_body
       FROM unnest(${add(perRow.ids)}::uuid[], ${add(perRow.contactIds)}::uuid[], ${add(perRow.bodies)}::text[]) AS t(id, contact_id, body)`
      : recipientsSql(spec.recipients, params);
  const contactsJoin = byNumber
    ? `JOIN ${byNumber.contactsFrom} c ON c.id = r.contact_id`
    : 'JOIN contacts c ON c.account_id = $1 AND c.id = r.contact_id';
  const body = perRow
    ? 'r.row_body'
    : spec.fixed
      ? `${add(spec.fixed.body)}::text`
      : renderSql(spec.parts, params, spec.smart);
  const expiresAt =
    spec.validity === undefined
      ? 'NULL::timestamptz'
      : `now() + make_interval(secs => ${add(spec.validity)}::int)`;
  const poolIds = add(spec.pool.map((p) => p.id));
  const poolNumbers = add(spec.pool.map((p) => p.number));
  const prices = add(JSON.stringify(spec.prices));
  const job = add(spec.jobId);
  const campaign = add(spec.campaignId);
  const media = add(JSON.stringify(spec.media));
  const optedOut = add(JSON.stringify(OPTED_OUT_ERROR));
  const invalid = add(INVALID_NUMBER_ERROR);
  // A rendered text that is empty (without media) or over the cap is a failed, uncharged message (text-rules.ts).
  const textError = textErrorSql('x.body', spec.media.length > 0 ? 'true' : 'false', add);
  // Per row, the GSM-7 test and the unit count run once each (sparrow_segments would repeat them).
  const encoding = spec.fixed
    ? `${add(spec.fixed.encoding)}::text`
    : "CASE WHEN g.gsm THEN 'GSM-7' ELSE 'UCS-2' END";
  const segments = spec.fixed
    ? `${add(spec.fixed.segments)}::int`
    : `CASE WHEN g.gsm THEN CASE WHEN g.units <= 160 THEN 1 ELSE ceil(g.units / 153.0)::int END
            ELSE CASE WHEN g.units <= 70 THEN 1 ELSE ceil(g.units / 67.0)::int END END`;
  // Only the merged-in values differ between recipients: the template's own text is measured once
  // here, and the per-row regular expressions run over the values alone.
  const literal = countSegments(spec.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''));
  const literalGsm = literal.encoding === 'GSM-7';
  const literalLength = spec.parts.reduce((n, p) => n + (p.kind === 'text' ? p.text.length : 0), 0);
  const fields = perRow
    ? 'r.row_body'
    : spec.fixed
      ? ''
      : renderSql(
          spec.parts.filter((p) => p.kind !== 'text'),
          params,
          spec.smart,
        );
  const units = spec.fixed
    ? ''
    : `CROSS JOIN LATERAL (SELECT gsm, CASE WHEN gsm THEN ${literal.units} +
           2 * length(x.fields) - length(regexp_replace(x.fields, '[\\u005E{}\\u005C\\u005B~\\u005D|€\\u000C]', '', 'g'))
         ELSE ${literalLength} +
           2 * length(x.fields) - length(regexp_replace(x.fields, '[\\U00010000-\\U0010FFFF]', '', 'g')) END AS units
         FROM (SELECT ${literalGsm} AND sparrow_is_gsm7(x.fields) AS gsm) g0) g`;

  // Sticky sender: a contact keeps the pool number it last talked to. With one number in the pool
  // there is nothing to choose, and no conversation needs to be looked up per recipient.
  const sticky =
    spec.pool.length > 1
      ? `LEFT JOIN LATERAL (
         SELECT cv.phone_number_id FROM conversations cv
         WHERE r.forced_number_id IS NULL AND cv.account_id = $1 AND cv.contact_id = c.id
           AND cv.phone_number_id = ANY(${poolIds}::uuid[])
         ORDER BY cv.updated_at DESC LIMIT 1
       ) sticky ON true`
      : 'LEFT JOIN (SELECT NULL::uuid AS phone_number_id) sticky ON true';

  // Else a sender suitable for the destination (docs/routing.md): among the pool's numbers of the
  // recipient's country, or that list it among their destinations; a recipient with none falls back
  // to the whole pool (sparrow_pick_sender). The countries are looked up only when the pool mixes them.
  const suitable = suitableSenders(spec.pool);
  const byCountry = suitable ? `${add(JSON.stringify(suitable))}::jsonb` : 'NULL::jsonb';

  // Quiet hours: each recipient's zones (by number prefix), and one hold per distinct set of zones
  // (a handful per send), joined back to the recipients.
  const quiet = spec.quiet
    ? {
        zones: ", coalesce(pz.zones, '{}') AS zones",
        lookup: `LEFT JOIN LATERAL ${numberZonesLateral('c.mobile_number')} pz ON true`,
        holds: `hold AS (
       SELECT d.zones, sparrow_quiet_until(nullif(d.zones, '{}'), ${add(spec.quiet.fallbackZone)}, now()) AS at
       FROM (SELECT DISTINCT y.zones FROM y WHERE y.error IS NULL) d
     ),`,
        hold: 'hold.at',
        join: 'LEFT JOIN hold ON y.error IS NULL AND hold.zones = y.zones',
      }
    : { zones: '', lookup: '', holds: '', hold: 'NULL::timestamptz', join: '' };

  // Conversations: upserted per (contact, sender) with `conversation-started` for new ones, or none.
  const conversations =
    spec.openConversations === false
      ? { cte: '', join: '', id: 'NULL::uuid' }
      : (() => {
          const by = add(JSON.stringify(spec.by));
          return {
            cte: `conv AS (
       INSERT INTO conversations AS cv (account_id, id, contact_id, phone_number_id, last_message_id, created_by, updated_by)
       SELECT ${perRow ? 'DISTINCT ON (y.contact_id, y.number_id)' : ''} $1, sparrow_uuidv7(), y.contact_id, y.number_id, y.id,
              ${by}::jsonb, ${by}::jsonb
       FROM y WHERE y.error IS NULL ${perRow ? 'ORDER BY y.contact_id, y.number_id, y.id DESC' : ''}
       ON CONFLICT (account_id, contact_id, phone_number_id)
         DO UPDATE SET last_message_id = EXCLUDED.last_message_id, updated_at = now()
       RETURNING cv.id, cv.contact_id, cv.phone_number_id, (cv.xmax = 0) AS created
     ),
     started AS (
       INSERT INTO events (id, account_id, type, data)
       -- A reference that sparrow_event_payload() turns into the published payload (migration 0150).
       SELECT sparrow_uuidv7(), $1, 'conversation-started',
              jsonb_build_object('hydrate', 'conversation', 'conversation', jsonb_build_object('id', conv.id))
       FROM conv WHERE conv.created AND ${eventHeard('$1::uuid', "'conversation-started'")}
     ),`,
            join: 'LEFT JOIN conv ON conv.contact_id = y.contact_id AND conv.phone_number_id = y.number_id',
            id: 'conv.id',
          };
        })();

  const ctes = `r AS (${recipients}),
     x AS (
       SELECT ${perRow ? 'r.row_id' : 'sparrow_uuidv7()'} AS id, c.id AS contact_id, c.mobile_number, c.mobile_country,
              CASE WHEN c.mobile_number IS NULL OR NOT c.mobile_valid THEN ${invalid}::jsonb
                   WHEN c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL THEN ${optedOut}::jsonb END AS contact_error,
              coalesce(r.forced_number_id, sticky.phone_number_id,
                       sparrow_pick_sender(c.id, c.mobile_country, ${poolIds}::uuid[], ${byCountry})) AS number_id,
              ${body} AS body${spec.fixed ? '' : `, ${fields} AS fields`}${quiet.zones}
       FROM r
       ${contactsJoin}
       ${sticky}
       ${quiet.lookup}
     ),
     y AS (
       SELECT x.*, coalesce(x.contact_error, ${textError}) AS error,
              ${encoding} AS encoding, ${segments} AS segments, pn.provider,
              coalesce(pn.number, (${poolNumbers}::text[])[array_position(${poolIds}::uuid[], x.number_id)]) AS from_number
       FROM x
       LEFT JOIN phone_numbers pn ON pn.account_id = $1 AND pn.id = x.number_id
       ${units}
     ),
     ${quiet.holds}
     ${conversations.cte}
     ins AS (
       INSERT INTO messages (account_id, id, job_id, campaign_id, contact_id, conversation_id, phone_number_id,
                             from_number, to_number, outgoing, body, template, media, encoding, segments, price,
                             status, error, created_by, provider, bulk, not_before, expires_at)
       SELECT $1, y.id, ${job}::uuid, ${campaign}::uuid, y.contact_id, ${conversations.id}, y.number_id, y.from_number,
              -- The source text and the author are the job's (send_jobs.template, created_by).
              y.mobile_number, true, y.body, ${perRow ? 'y.body' : 'NULL'}, ${media}::jsonb, y.encoding, y.segments,
              CASE WHEN y.error IS NULL
                   THEN sparrow_price(y.segments, y.mobile_country, ${prices}::jsonb)
                   ELSE 0 END,
              CASE WHEN y.error IS NULL THEN 'queued' ELSE 'failed' END, y.error, NULL,
              -- The number's provider, recorded now so the claim does not change an indexed column.
              CASE WHEN y.error IS NULL THEN y.provider END,
              -- Dispatched by ranges of the job (migration 0032), not through the per-message queue.
              y.error IS NULL,
              -- Held by quiet hours in the recipient's time zone (one dispatch cursor per hold).
              ${quiet.hold},
              -- The validity period ends (a failed message has none left to wait out).
              CASE WHEN y.error IS NULL THEN ${expiresAt} END
       FROM y ${conversations.join}
       ${quiet.join}
       RETURNING status, price, not_before
     ),
     failed AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA}
       FROM (SELECT $1::uuid AS account_id, y.id, ${job}::uuid AS job_id, ${campaign}::uuid AS campaign_id,
                    NULL::uuid AS conversation_id, y.from_number, y.mobile_number AS to_number, true AS outgoing,
                    false AS system, y.encoding, y.segments, 0::numeric AS price, 'failed' AS status, y.error,
                    NULL::text AS provider_message_id, NULL::text AS provider_ref, NULL::text AS provider, y.contact_id
             FROM y WHERE y.error IS NOT NULL) m
       WHERE ${eventHeard('$1::uuid', "'message-status'")}
     )`;
  const counts = `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued,
            count(*) FILTER (WHERE status = 'failed')::int AS failed,
            coalesce(sum(price), 0)::float8 AS price,
            coalesce(array_agg(DISTINCT not_before) FILTER (WHERE status = 'queued'), '{}') AS holds
     FROM ins`;
  return { ctes, counts };
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
  // The messages are counted, not the events (those are written only where heard).
  const { rows } = await db.query<{ n: number }>(
    `WITH ins AS (
       INSERT INTO messages (account_id, id, job_id, campaign_id, from_number, to_number, outgoing, body, template,
                             encoding, segments, status, error, created_by)
       SELECT $1, sparrow_uuidv7(), $2, $3, $4, t.n, true, $5, $6, NULL, 0, 'failed',
              $9::jsonb, $7
       FROM unnest($8::text[]) AS t(n)
       RETURNING *
     ), ev AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), m.account_id, 'message-status', ${MESSAGE_EVENT_DATA} FROM ins m
       WHERE ${eventHeard('$1::uuid', "'message-status'")}
     )
     SELECT count(*)::int AS n FROM ins`,
    [accountId, m.jobId, m.campaignId, m.from, m.body, m.template, m.by, m.numbers, INVALID_NUMBER_ERROR],
  );
  return rows[0].n;
}
