import type { Config } from '../../../config.ts';
import { type Db, type Queryable, withBulkTx } from '../../../db/client.ts';
import { adjustBalance, findAccount } from '../../../db/queries/accounts.ts';
import { contactsForMobiles, findContacts } from '../../../db/queries/contacts.ts';
import { fieldsToRecord, type UpsertRecord } from '../../../db/queries/contacts-merge.ts';
import type { ListRow } from '../../../db/queries/lists.ts';
import { findList } from '../../../db/queries/lists.ts';
import { insertInvalidNumberMessages, insertJobMessages } from '../../../db/queries/message-bulk.ts';
import { existingConversationIds, firstJobMessages } from '../../../db/queries/messages.ts';
import { insertSendJob, setSendJobCounts, startScheduledJob } from '../../../db/queries/send-jobs.ts';
import { contactsCreated } from '../../../db/statistics.ts';
import { ERRORS, fail } from '../../../errors.ts';
import { checkMediaUrls } from '../../../messaging/media-url.ts';
import { parseMobile, readingCountry } from '../../../messaging/phone.ts';
import { parseTemplate, type TemplatePart } from '../../../messaging/render.ts';
import { countSegments, encodeText } from '../../../messaging/segments.ts';
import { effectiveValidity } from '../../../messaging/validity.ts';
import { isId, newId } from '../../../util/ids.ts';
import { YIELD_EVERY, yieldToLoop } from '../../../util/yield.ts';
import type { Actor } from '../../actor.ts';
import { shortenLinks } from '../../links/shorten-links.ts';
import { type Message, presentMessage } from '../../messages/present-message.ts';
import { groupSenderPool, sendersInOrder } from '../../numbers/group-sender-pool.ts';
import { type RecipientConditions, recipientSelection } from './recipient-filter.ts';

/** A recipient: an existing contact by id, or a mobile number (the contact is created when new). */
export interface SendContactInput {
  id?: string;
  mobile?: { number: string; country?: string };
  firstName?: string;
  lastName?: string;
  email?: string;
}

/** A bulk send (the body of POST …/messages, plus the campaign it runs for). */
export interface SendMessagesInput {
  contacts?: SendContactInput[];
  conversations?: string[];
  /** `list.id`: the Campaign shape's spelling of `listId`. */
  filters?: RecipientConditions & { listId?: string; list?: { id: string } };
  listId?: string;
  phoneNumberFilter?: { group?: { id: string } };
  template?: string;
  type?: 'SMS' | 'MMS';
  media?: { url: string }[];
  campaignId?: string;
  /**
   * A marketing send: each message is held until quiet hours (21:00–8:00) end in its recipient's
   * time zone, the account's where the number does not tell (queued and charged now).
   */
  quietHours?: boolean;
  /** Replace the text's URLs with tracked short links whose source is this send job (docs/links.md). */
  shortenLinks?: boolean;
  /** Smart encoding for this send (docs/encoding.md); absent: the account's setting (on by default). */
  smartEncoding?: boolean;
  /**
   * Seconds each message may wait to be dispatched (from acceptance; a scheduled send's from its
   * run): then it fails as expired (MSG-012) and is refunded. Absent: the account's default, if any.
   */
  validityPeriod?: number;
}

/** A recipient named in the request whose number is not a valid mobile number, as the send answers it. */
export interface RefusedContact {
  mobile: { number: string; country?: string };
  error: { code: string; description: string };
}

/**
 * What a send answers: the union of the two published versions' fields (`jobId`, `queued`,
 * `estimatedPrice`, `messages`; `requested`, `valid`, `invalid`) plus Sparrow's `failed`.
 */
export interface SendMessagesResult {
  jobId: string;
  /** Every recipient the send addressed: `queued` + `failed`. */
  requested: number;
  /** Recipients accepted for sending (the same as `queued`). */
  valid: number;
  queued: number;
  failed: number;
  estimatedPrice: number;
  messages: Message[];
  /** Contacts named in the request whose number is not a valid mobile number (failed, uncharged: CONT-001). */
  invalid: RefusedContact[];
}

/** The job record's `invalid` items (unchanged: the number as a string). */
export function jobInvalid(invalid: RefusedContact[]): { mobile: string; error: RefusedContact['error'] }[] {
  return invalid.map((i) => ({ mobile: i.mobile.number, error: i.error }));
}

/**
 * The service's settings a send applies: its price table (PRICE_TABLE) and EXTERNALS_URL (short
 * links are built on it; its own hosted files are valid media). Callers pass `ctx.config`.
 */
export type SendSettings = Pick<Config, 'priceTable' | 'externalsUrl'>;

/** How sendMessages runs: at once (the default), priced without effect (`estimate`), or a scheduled job's run. */
export interface SendOptions {
  /** Run everything, then roll back and answer what the send would do (a scheduled send's check). */
  estimate?: boolean;
  /** The scheduled job this send runs (MSG-008 when it is no longer scheduled). */
  scheduledJobId?: string;
  /** Send from this number only (an SMPP submission names its source address), not from a group. */
  sender?: { id: string; number: string };
  /** The text is sent as it is: no merge fields (an SMPP submission's text is never a template). */
  literal?: boolean;
  /**
   * An SMPP client's submission (a relay): no conversation is opened at send; the recipient's
   * conversation opens when it replies (docs/smpp-server.md).
   */
  relay?: boolean;
  /** Runs inside the send's transaction once its messages exist (records that belong to the send). */
  within?: (tx: Queryable, result: SendMessagesResult) => Promise<void>;
}

/** Thrown inside the transaction of an estimate to roll it back with its answer. */
class Estimate {
  constructor(readonly result: SendMessagesResult) {}
}

/** Messages returned with the answer; the rest are listed by GET …/messages?jobId=. */
const FIRST_MESSAGES = 100;

/**
 * The list a send names: `filters.listId`, its alias `filters.list.id` or the top-level `listId`
 * (with the field that named it). Naming different lists is refused (VAL-001).
 */
function namedList(input: SendMessagesInput): { id: string; field: string } | undefined {
  const given: [string, string | undefined][] = [
    ['filters.listId', input.filters?.listId],
    ['filters.list.id', input.filters?.list?.id],
    ['listId', input.listId],
  ];
  const named = given.flatMap(([field, id]) => (id === undefined ? [] : [{ field, id }]));
  if (new Set(named.map((n) => n.id)).size > 1)
    fail('VAL-001', `${named.map((n) => `\`${n.field}\``).join(' and ')} name different lists: give one.`);
  return named[0];
}

/** The senders of the send's group, in their stable order (GRP-003 when it has none). */
async function groupSenders(tx: Queryable, accountId: string, input: SendMessagesInput) {
  const pool = await groupSenderPool(tx, accountId, input.phoneNumberFilter?.group?.id);
  if (pool.numbers.length === 0) fail('GRP-003');
  return sendersInOrder(pool);
}

/**
 * Sends one text to many recipients in one transaction: creates the send job, inserts every
 * message set-based (insertJobMessages), charges the account the total price (402 ACCT-002 and
 * nothing queued when the balance cannot cover it), and answers the counts and the first 100
 * messages. Invalid numbers (CONT-001), opted-out or blocked contacts (CONT-010) and texts that
 * render empty without media (MSG-004) or over MAX_TEXT_LENGTH (MSG-005) become failed, uncharged
 * messages; invalid numbers named in the request are also answered in `invalid`. Errors: MSG-003
 * empty text, MSG-002 no recipients, MSG-006 a filter with no condition (recipientSelection),
 * MSG-009 media URL, VAL-001 a malformed id (named), CONV-001 unknown conversation, CONT-002
 * unknown contact, LIST-001 unknown list, GRP-001/GRP-003 sender group. `opts.estimate` answers
 * without effect (scheduleSend); `opts.scheduledJobId` runs a scheduled job (MSG-008 when taken).
 * Prices, short links and media trust are the service's (`settings`).
 */
export async function sendMessages(
  db: Db,
  accountId: string,
  input: SendMessagesInput,
  by: Actor,
  settings: SendSettings,
  opts: SendOptions = {},
): Promise<SendMessagesResult> {
  const template = input.template ?? '';
  const media = input.media ?? [];
  if (template.trim() === '' && !(input.type === 'MMS' && media.length > 0)) fail('MSG-003');

  const contacts = input.contacts ?? [];
  const conversations = [...new Set(input.conversations ?? [])];
  const named = namedList(input);
  const listId = named?.id;
  const selection = recipientSelection(input.filters, 'filters', listId !== undefined);
  const hasFilter = selection !== undefined || listId !== undefined;
  if (contacts.length === 0 && conversations.length === 0 && !hasFilter) fail('MSG-002');
  for (const [i, c] of contacts.entries()) {
    if (c.id !== undefined && !isId(c.id))
      fail('VAL-001', `\`contacts[${i}].id\` is not a contact id: ${JSON.stringify(c.id)}.`);
    if (!c.id && !c.mobile) fail('VAL-001', `\`contacts[${i}]\` needs an \`id\` or a \`mobile\`.`);
  }
  const ids = [...new Set(contacts.filter((c) => c.id).map((c) => c.id as string))];
  const badConv = (input.conversations ?? []).findIndex((id) => !isId(id));
  if (badConv >= 0)
    fail(
      'CONV-001',
      `\`conversations[${badConv}]\` is not a conversation id: ${JSON.stringify(input.conversations?.[badConv])}.`,
    );
  if (listId !== undefined && !isId(listId))
    fail('VAL-001', `\`${named?.field}\` is not a list id: ${JSON.stringify(listId)}.`);
  checkMediaUrls(media, settings.externalsUrl);

  const jobId = opts.scheduledJobId ?? newId();
  // The accept statement covers every recipient: a million take about a minute.
  let created = 0;
  const run = withBulkTx(db, async (tx) => {
    // A scheduled job's run takes the job first: a second worker (or a cancel) waits on its row and then finds it taken.
    if (opts.scheduledJobId !== undefined && !(await startScheduledJob(tx, accountId, jobId)))
      fail('MSG-008');
    const text = input.shortenLinks
      ? await shortenLinks(
          tx,
          accountId,
          template,
          { jobId, campaignId: input.campaignId },
          settings.externalsUrl,
        )
      : template;
    // The account's sending settings: smart encoding and the default validity period.
    const account = (await findAccount(tx, accountId)) ?? fail('ACCT-001');
    const smart = input.smartEncoding ?? account.smart_encoding;
    const validity = effectiveValidity(input.validityPeriod, account.validity_period);
    // Smart encoding applies to what is stored and sent: the template's own text here, merged-in
    // values as the statement renders them (renderSql); segments and price are counted after it.
    const parts: TemplatePart[] = (
      opts.literal ? [{ kind: 'text' as const, text }] : parseTemplate(text)
    ).map((p) => (p.kind === 'text' ? { ...p, text: encodeText(p.text, smart) } : p));
    const fixed = parts.every((p) => p.kind === 'text')
      ? (() => {
          const body = parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
          return { body, ...countSegments(body) };
        })()
      : undefined;
    const senders: { id: string; number: string; country?: string; destinations?: string[] }[] = opts.sender
      ? [opts.sender]
      : await groupSenders(tx, accountId, input);

    const found = new Set((await findContacts(tx, accountId, ids)).map((c) => c.id));
    const missing = ids.find((id) => !found.has(id));
    if (missing) fail('CONT-002', `Contact ${missing} not found.`);
    const knownConversations = await existingConversationIds(tx, accountId, conversations);
    const unknownConv = conversations.find((id) => !knownConversations.has(id));
    if (unknownConv) fail('CONV-001', `Invalid conversation id ${unknownConv}.`);
    let list: ListRow | undefined;
    if (listId !== undefined) list = (await findList(tx, accountId, listId)) ?? fail('LIST-001');

    // Recipients named by mobile: created set-based when new (with their contact-created events), then
    // every one's id read in one statement; invalid ones are recorded.
    const invalidNumbers: { number: string; country?: string }[] = [];
    const contactIds = new Set(ids);
    const byNumber = new Map<string, UpsertRecord>();
    // A national number is read in the given country, else the send's sender number's, else US
    // (messaging/phone.ts, readingCountry: the rule the contacts area applies too).
    const home = senders[0]?.country;
    let parsedSoFar = 0;
    for (const c of contacts) {
      if (c.id || !c.mobile) continue;
      if (++parsedSoFar % YIELD_EVERY === 0) await yieldToLoop();
      const parsed = parseMobile(c.mobile.number, readingCountry(c.mobile.country, home));
      if (!parsed) {
        invalidNumbers.push(
          c.mobile.country === undefined
            ? { number: c.mobile.number }
            : { number: c.mobile.number, country: c.mobile.country },
        );
        continue;
      }
      if (byNumber.has(parsed.number)) continue;
      const fields = {
        mobile: { ...parsed, valid: true },
        firstName: c.firstName,
        lastName: c.lastName,
        email: c.email,
      };
      byNumber.set(parsed.number, {
        ...fieldsToRecord(fields),
        id: newId(),
        row: byNumber.size + 1,
        event_id: newId(),
      });
    }
    if (byNumber.size > 0) {
      const contacts = await contactsForMobiles(tx, accountId, byNumber, by);
      created = contacts.created;
      for (const id of contacts.ids.values()) contactIds.add(id);
    }

    const campaignId = input.campaignId ?? null;
    if (opts.scheduledJobId === undefined)
      await insertSendJob(tx, accountId, { id: jobId, campaignId, template, by });
    const counts = await insertJobMessages(tx, accountId, {
      jobId,
      campaignId,
      recipients: {
        contactIds: [...contactIds],
        conversationIds: conversations,
        filter: hasFilter
          ? {
              tags: selection?.all === false ? selection.tags : [],
              attributes: selection?.all === false ? selection.attributes : [],
              q: selection?.all === false ? selection.q : undefined,
              list,
            }
          : undefined,
      },
      pool: senders,
      openConversations: !opts.relay,
      parts,
      smart,
      validity,
      fixed,
      media,
      prices: settings.priceTable,
      by,
      quiet: input.quietHours ? { fallbackZone: account.timezone } : undefined,
    });
    const invalidCount = await insertInvalidNumberMessages(tx, accountId, {
      jobId,
      campaignId,
      from: senders[0].number,
      template,
      body: template,
      numbers: invalidNumbers.map((n) => n.number),
      by,
    });
    const failed = counts.failed + invalidCount;
    if (counts.queued + failed === 0) fail('MSG-002', 'No contact matches the recipients of this send.');
    const invalid = invalidNumbers.map((mobile) => ({
      mobile,
      error: { code: 'CONT-001', description: ERRORS['CONT-001'].message },
    }));
    await setSendJobCounts(tx, accountId, jobId, {
      holds: counts.holds,
      numberIds: senders.map((s) => s.id),
      submitted: counts.queued + failed,
      queued: counts.queued,
      failures: failed,
      price: counts.price,
      invalid: jobInvalid(invalid),
    });
    const first = await firstJobMessages(tx, accountId, jobId, FIRST_MESSAGES);
    const result = {
      jobId,
      requested: counts.queued + failed,
      valid: counts.queued,
      queued: counts.queued,
      failed,
      estimatedPrice: counts.price,
      messages: first.map(presentMessage),
      invalid,
    };
    if (opts.within) await opts.within(tx, result);
    // The charge comes last: the account row it locks is held to the commit, and every send of
    // the account (each SMPP submission is one) waits on it, so the less after it the better.
    if (counts.price > 0) {
      const balance = await adjustBalance(tx, accountId, -counts.price);
      if (balance === undefined || balance < 0) fail('ACCT-002');
    }
    if (opts.estimate) throw new Estimate(result);
    return result;
  });
  if (!opts.estimate)
    return run.then((result) => {
      contactsCreated(db, created);
      return result;
    });
  try {
    return await run;
  } catch (err) {
    if (err instanceof Estimate) return err.result;
    throw err;
  }
}
