import { type Db, withBulkTx } from '../../db/client.ts';
import { adjustBalance, type SendingSettingsFrom, sendingSettingsFrom } from '../../db/queries/accounts.ts';
import { contactsForMobiles } from '../../db/queries/contacts.ts';
import { fieldsToRecord, type UpsertRecord } from '../../db/queries/contacts-merge.ts';
import { insertJobMessages } from '../../db/queries/message-bulk.ts';
import { setSendJobCounts } from '../../db/queries/send-jobs.ts';
import { enqueueFinalReceipts, insertSmppSubmissions } from '../../db/queries/smpp.ts';
import { CONTACT_EVENTS_HEARD, refusalOf, relayBatch } from '../../db/queries/smpp-relay.ts';
import { contactsCreated } from '../../db/statistics.ts';
import { AppError, fail } from '../../errors.ts';
import { type ParsedMobile, parseMobile } from '../../messaging/phone.ts';
import { encodeText } from '../../messaging/segments.ts';
import { effectiveValidity } from '../../messaging/validity.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import type { SendSettings } from '../send/accept/send-messages.ts';
import { type SmppSubmission, type SmppSubmitOutcome, submitSmppMessage } from './submit-message.ts';

/**
 * The open send job a batch goes to (a lane of SubmitBatcher's), and the last message id of the
 * relay's previous batch (null: the job is not written yet, this batch creates it).
 */
export interface RelayJob {
  id: string;
  lastId: string | null;
  /** The account's sending settings and number as the relay's earlier batch read them. */
  settings?: SendingSettingsFrom;
  /** An earlier batch found `contact-created` heard: the relay's batches write it (relayBatch). */
  contactEvents?: boolean;
}

/**
 * What a batch answers: an outcome per submission, and when it went whole to the relay's job, its
 * last id and the sending settings it was written under (the relay's next batch is written under
 * the same, checked in its statement instead of read again).
 */
export interface SmppBatchResult {
  outcomes: SmppSubmitOutcome[];
  lastId?: string;
  settings?: SendingSettingsFrom;
  contactEvents?: boolean;
}

/**
 * Sends submissions of one credential from one source number, each to ONE destination, in one
 * transaction: the same rules as submitSmppMessage (contacts created for new
 * numbers, opt-outs and blocks as failed messages, pricing, the balance charged, events, the
 * submission recorded when a receipt is asked for), with one commit and one charge for all of them
 * instead of one each. Answers an outcome per submission, in order. When the batch cannot go as a
 * whole (the balance does not cover it, or a rule refuses it), each submission is sent on its own
 * so that each gets its own answer. Prices are the service's (`settings.priceTable`).
 *
 * The messages go to `relay`'s job (a relay: one job for many batches, so that the dispatcher
 * hands them out in ranges as large as its backlog instead of one small job per batch), or to a
 * new job of their own without one. A relay's batches must come one at a time, each after the
 * previous one committed: their ids (uuidv7, increasing in this process) then follow the job's
 * earlier ones, which the dispatch cursor relies on (relayExtendSql). A relay's batches after its
 * first are written as one statement (relayBatch: one round trip); the first, which creates the job,
 * and a batch without a relay, as a transaction of several.
 */
export async function submitSmppBatch(
  db: Db,
  subs: SmppSubmission[],
  settings: SendSettings,
  relay?: RelayJob,
): Promise<SmppBatchResult> {
  const first = subs[0];
  for (const s of subs) {
    if (
      s.credentialId !== first.credentialId ||
      s.source !== first.source ||
      s.validityPeriod !== first.validityPeriod ||
      s.destinations.length !== 1
    )
      throw new Error('an SMPP batch is one credential, source and validity, one destination a submission');
  }
  const by: Actor = { id: first.credentialId, name: first.systemId, source: 'smpp' };
  const ids = subs.map(() => newId());
  // Ids not after the relay's last one (a clock set back further than uuidv7 bridges): a new job.
  const after = relay?.lastId && ids[0] > relay.lastId ? relay.lastId : null;
  const jobId = relay && (relay.lastId === null || after) ? relay.id : newId();
  // The account's sending settings and the source number, read before the transaction (nothing is
  // locked by reading them: the charge below is what must be atomic with the messages). A relay's
  // later batch takes them from its earlier one: its statement refuses itself if they changed.
  const cached = after && relay?.settings?.sender ? relay.settings : undefined;
  const account = cached ?? (await sendingSettingsFrom(db, first.accountId, first.source));
  const sender = account?.sender;
  if (!sender) {
    const description = `${first.source} is not a sending number of this account`;
    return { outcomes: subs.map(() => ({ ok: false, reason: 'source', description })) };
  }
  let created = 0;
  let contactEvents = relay?.contactEvents === true;
  try {
    // A blank text is refused as sendMessages refuses it: each submission then answers on its own.
    if (subs.some((s) => s.text.trim() === '')) fail('MSG-003');
    // The account's sending settings, as sendMessages applies them: smart encoding of the text
    // and the default validity period when the submissions named none.
    const validity = effectiveValidity(first.validityPeriod, account.validity_period);
    const bodies = subs.map((s) => encodeText(s.text, account.smart_encoding));
    const mobiles = new Map<string, ParsedMobile>();
    for (const s of subs) {
      const number = s.destinations[0];
      if (mobiles.has(number)) continue;
      const parsed = s.mobiles?.[0]?.number === number ? s.mobiles[0] : parseMobile(number);
      if (!parsed) fail('MSG-002');
      mobiles.set(number, parsed);
    }
    const receipts = subs.flatMap((s, k) =>
      s.receiptMask === 0
        ? []
        : [
            {
              messageId: ids[k],
              credentialId: s.credentialId,
              smppIds: [...(s.otherPartIds ?? []), ids[k]],
              receiptMask: s.receiptMask,
            },
          ],
    );
    const messages = {
      jobId,
      campaignId: null,
      recipients: { contactIds: [], conversationIds: [] },
      validity,
      pool: [{ id: sender.id, number: sender.number }],
      // A relay: the recipient's conversation opens when it replies, as submitSmppMessage's.
      openConversations: false,
      parts: [],
      media: [],
      prices: settings.priceTable,
      by,
    };
    if (after) {
      // The relay's next batch: one statement, its own transaction (smpp-relay.ts).
      const recipients = [...mobiles.values()];
      const write = () =>
        relayBatch(db, first.accountId, {
          recipients: {
            ids: recipients.map(() => newId()),
            numbers: recipients.map((m) => m.number),
            countries: recipients.map((m) => m.country),
            lineTypes: recipients.map((m) => m.lineType),
          },
          messages: { ...messages, rows: { ids, numbers: subs.map((s) => s.destinations[0]), bodies } },
          receipts,
          relay: { jobId, after },
          settings: { ...account, sender },
          contactEvents,
        });
      try {
        created = (await write()).created;
      } catch (err) {
        // Written without contact-created, which is heard now (a webhook or workflow started
        // listening): nothing was written; again with it, and so the relay's later batches.
        if (contactEvents || refusalOf(err) !== CONTACT_EVENTS_HEARD) throw err;
        contactEvents = true;
        created = (await write()).created;
      }
    } else
      await withBulkTx(db, async (tx) => {
        const byNumber = new Map<string, UpsertRecord>();
        for (const parsed of mobiles.values())
          byNumber.set(parsed.number, {
            ...fieldsToRecord({ mobile: { ...parsed, valid: true } }),
            id: newId(),
            row: byNumber.size + 1,
            event_id: newId(),
          });
        const contacts = await contactsForMobiles(tx, first.accountId, byNumber, by);
        const contactOf = contacts.ids;
        created = contacts.created;
        const counts = await insertJobMessages(tx, first.accountId, {
          ...messages,
          rows: {
            ids,
            contactIds: subs.map((s) => contactOf.get(s.destinations[0]) ?? fail('MSG-002')),
            bodies,
          },
        });
        // The job is written with its counts, after its messages (nothing reads it before the commit).
        await setSendJobCounts(
          tx,
          first.accountId,
          jobId,
          {
            holds: counts.holds,
            numberIds: [sender.id],
            submitted: counts.queued + counts.failed,
            queued: counts.queued,
            failures: counts.failed,
            price: counts.price,
            invalid: [],
          },
          { campaignId: null, template: first.text, by },
        );
        await insertSmppSubmissions(tx, first.accountId, receipts);
        // A message failed at once (opted out, blocked) is final: its receipt goes now.
        if (counts.failed > 0)
          await enqueueFinalReceipts(
            tx,
            first.accountId,
            receipts.map((r) => r.messageId),
          );
        // The charge comes last: the balance row it locks is held to the commit.
        if (counts.price > 0) {
          const balance = await adjustBalance(tx, first.accountId, -counts.price);
          if (balance === undefined || balance < 0) fail('ACCT-002');
        }
      });
  } catch (err) {
    const refused = refusalOf(err) !== undefined;
    if (!(err instanceof AppError) && !refused) throw err;
    // Not as a whole: each on its own, answered its own outcome (e.g. the balance covers some).
    const outcomes: SmppSubmitOutcome[] = [];
    for (const s of subs) outcomes.push(await submitSmppMessage(db, s, settings));
    return { outcomes };
  }
  contactsCreated(db, created);
  return {
    outcomes: ids.map((id) => ({ ok: true, messageIds: [id] })),
    lastId: relay && jobId === relay.id ? ids[ids.length - 1] : undefined,
    settings: account,
    contactEvents,
  };
}
