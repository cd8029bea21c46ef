/** An SMPP batch added to its open relay job as ONE autocommit statement (domain/smpp/submit-batch.ts). */

import type { Queryable } from '../client.ts';
import { type Sender, type SendingSettings, sendingSettingsStillSql } from './accounts.ts';
import { contactJsonSql } from './contacts-merge.ts';
import { eventHeard } from './events.ts';
import { type JobMessagesSpec, jobMessagesSql, preparedName } from './message-bulk.ts';
import { relayExtendSql } from './send-jobs.ts';
import { smppSubmissionsJson, smppSubmissionsSql } from './smpp.ts';

/** The SQLSTATE of sparrow_refuse (migration 0430): the statement refused itself and wrote nothing. */
const REFUSED_SQLSTATE = 'SPA02';
/** The reason a batch written without `contact-created` events refuses itself: they are heard now. */
export const CONTACT_EVENTS_HEARD = 'contact-created is heard';

/** Why the statement refused itself (sparrow_refuse), or undefined when `err` is no such refusal. */
export function refusalOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown };
  return e.code === REFUSED_SQLSTATE ? String(e.message) : undefined;
}

/** A batch as relayBatch writes it. */
export interface RelayBatch {
  /** The recipients' numbers, each once, with what a new contact records of it. */
  recipients: { ids: string[]; numbers: string[]; countries: string[]; lineTypes: string[] };
  /** The messages: `rows` by number, their contacts found in the statement's own `cs`. */
  messages: Omit<JobMessagesSpec, 'rows'> & { rows: { ids: string[]; numbers: string[]; bodies: string[] } };
  /** The submissions whose receipts were asked for. */
  receipts: { messageId: string; credentialId: string; smppIds: string[]; receiptMask: number }[];
  /** The open relay job and the last message id of its previous batch (relayExtendSql). */
  relay: { jobId: string; after: string };
  /** The sending settings and number the batch was built with, read at the relay's first batch. */
  settings: SendingSettings & { sender: Sender };
  /**
   * Write `contact-created` for the contacts it creates where heard. Without it the statement has
   * no events insert for them at all (its setup and its triggers cost ~0.5 ms a batch, where
   * nothing listens to that type in most accounts) and refuses itself (CONTACT_EVENTS_HEARD) if it
   * creates a contact while the type is heard: the caller then writes the batch with it.
   */
  contactEvents: boolean;
}

/**
 * Writes an SMPP batch in one statement, its own transaction: the recipients that have no contact
 * become contacts (with contact-created where heard, see `contactEvents`), the messages are inserted as
 * insertJobMessages inserts them (opted-out and blocked recipients' as failed), the submissions
 * are recorded, and the relay job is extended and the account charged as relayExtendSql does, in
 * the same lock order. One round trip instead of seven, and the locks of the job, its cursor and
 * the balance held only to the statement's own commit.
 *
 * The account's sending settings and number are not read again for it: the statement refuses
 * itself (sparrow_refuse: SQLSTATE SPA02, nothing written) when they are no longer `b.settings`
 * (the number released or unverified, smart encoding or the default validity changed), when a
 * recipient's contact appeared after its snapshot (another transaction's: its message would be
 * missing), the job was closed (cancelled), or the balance does not cover the batch; the caller
 * then sends the submissions one by one, each reading the settings as they are. A failed message's
 * receipt is queued by the trigger on its `message-status` event, which runs after the statement
 * and so finds its submission. Answers how many contacts it created.
 */
export async function relayBatch(
  db: Queryable,
  accountId: string,
  b: RelayBatch,
): Promise<{ created: number }> {
  const params: unknown[] = [accountId];
  const add = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const r = b.recipients;
  const by = add(JSON.stringify(b.messages.by));
  const numbers = add(r.numbers);
  const contacts = `nc AS (
       INSERT INTO contacts AS c (account_id, id, mobile_number, mobile_country, mobile_valid, mobile_line_type,
                                  attributes, tags, created_by, updated_by)
       SELECT $1, t.id, t.number, t.country, true, t.line_type, '{}', '[]', ${by}::jsonb, ${by}::jsonb
         FROM unnest(${add(r.ids)}::uuid[], ${numbers}::text[], ${add(r.countries)}::text[], ${add(r.lineTypes)}::text[])
           AS t(id, number, country, line_type)
       ON CONFLICT (account_id, mobile_number) WHERE mobile_number IS NOT NULL DO NOTHING
       RETURNING c.*
     )${
       b.contactEvents
         ? `, nce AS (
       INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), $1, 'contact-created', ${contactJsonSql('nc', { fresh: true })} FROM nc
       WHERE ${eventHeard('$1::uuid', "'contact-created'")}
     )`
         : ''
     }, cs AS (
       SELECT nc.id, nc.mobile_number, nc.mobile_country, nc.mobile_valid, nc.opted_out_at, nc.blocked_at FROM nc
       UNION ALL
       SELECT c.id, c.mobile_number, c.mobile_country, c.mobile_valid, c.opted_out_at, c.blocked_at
         FROM contacts c WHERE c.account_id = $1 AND c.mobile_number = ANY(${numbers}::text[])
     )`;
  const inserted = jobMessagesSql(
    { ...b.messages, rows: { ...b.messages.rows, contactsFrom: 'cs' } },
    params,
  );
  const submissions =
    b.receipts.length > 0
      ? `, sub AS (${smppSubmissionsSql('$1', add(smppSubmissionsJson(b.receipts)))})`
      : '';
  // The counts come from the insert, so the cursor, the job and the balance are locked after it.
  const extend = relayExtendSql({
    account: '$1::uuid',
    job: `${add(b.relay.jobId)}::uuid`,
    submitted: '(SELECT total FROM n)',
    queued: '(SELECT queued FROM n)',
    failures: '(SELECT failed FROM n)',
    price: '(SELECT price FROM n)',
    after: `${add(b.relay.after)}::uuid`,
  });
  const settled = sendingSettingsStillSql({
    account: '$1::uuid',
    smartEncoding: add(b.settings.smart_encoding),
    validity: add(b.settings.validity_period),
    senderId: add(b.settings.sender.id),
    number: add(b.settings.sender.number),
  });
  const expected = add(b.messages.rows.ids.length);
  const text = `WITH ${contacts}, ${inserted.ctes}${submissions}, n AS (
       SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'queued')::int AS queued,
              count(*) FILTER (WHERE status = 'failed')::int AS failed, coalesce(sum(price), 0) AS price
         FROM ins
     ), ${extend}
     SELECT (SELECT count(*) FROM nc)::int AS created,
            CASE WHEN NOT ${settled} THEN sparrow_refuse('the account''s sending settings or number changed')
                 WHEN (SELECT total FROM n) <> ${expected}::int THEN sparrow_refuse('a recipient''s contact appeared meanwhile')
                 WHEN NOT EXISTS (SELECT 1 FROM job) THEN sparrow_refuse('the relay job is closed')
                 WHEN (SELECT balance FROM charge) < 0 THEN sparrow_refuse('the balance does not cover the batch')
                 ${
                   b.contactEvents
                     ? ''
                     : `WHEN EXISTS (SELECT 1 FROM nc) AND ${eventHeard('$1::uuid', "'contact-created'")}
                   THEN sparrow_refuse('${CONTACT_EVENTS_HEARD}')`
                 }
            END AS refused`;
  const { rows } = await db.query<{ created: number }>({
    name: preparedName('smpp-relay', text),
    text,
    values: params,
  });
  return { created: rows[0].created };
}
