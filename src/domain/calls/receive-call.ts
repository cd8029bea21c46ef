import { type Db, withTx } from '../../db/client.ts';
import { type CallRow, insertCallIfAbsent } from '../../db/queries/calls.ts';
import { groupsOfNumbers } from '../../db/queries/groups.ts';
import { parseMobile } from '../../messaging/phone.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { findOrCreateContactByMobile } from '../contacts/find-or-create-by-mobile.ts';
import { ourCalledNumber } from './our-number.ts';
import { DEFAULT_VOICEMAIL_GREETING, type VoicePlan, voicePlanFor } from './voice-plan.ts';

/** A call a carrier announces to one of our numbers. */
export interface IncomingCall {
  provider: string;
  /** The carrier's call id (Twilio's CallSid): a retried webhook for it finds the first call. */
  providerCallId: string;
  from: string;
  to: string;
}

/** The call as stored and what the carrier is to do with it. */
export interface ReceivedCall {
  call: CallRow;
  plan: VoicePlan;
  /** False when this carrier call id was already stored (a retried webhook). */
  created: boolean;
}

/**
 * Takes in an incoming call: routes it by the called number to its account (PROV-002 when none),
 * decides its fate from the number's `channels.voice` (see voicePlanFor; a blocked contact is
 * rejected), and in ONE transaction finds or creates the caller's contact (emitting
 * `contact-created` when new) and stores the call as `initiated`. A caller id that is not a valid
 * number (withheld, anonymous) leaves the call without a contact. A carrier call id seen before
 * answers the stored call and its original decision.
 */
export async function receiveCall(db: Db, incoming: IncomingCall): Promise<ReceivedCall> {
  const number = await ourCalledNumber(db, incoming.to, incoming.provider);
  const accountId = number.account_id;
  const caller = parseMobile(incoming.from, number.country);
  const by: Actor = { id: 'voice', name: 'Inbound call', source: 'voice', subSource: incoming.provider };

  return withTx(db, async (tx) => {
    const contact = caller
      ? (
          await findOrCreateContactByMobile(
            tx,
            accountId,
            { number: caller.number, country: caller.country, lineType: caller.lineType },
            by,
          )
        ).contact
      : undefined;
    let plan = voicePlanFor(number);
    if (contact?.blocked_at) plan = { action: 'reject' };
    const [group] = await groupsOfNumbers(tx, accountId, [number.id]);
    const { row, created } = await insertCallIfAbsent(tx, accountId, {
      id: newId(),
      contactId: contact?.id ?? null,
      phoneNumberId: number.id,
      groupId: group?.id ?? null,
      from: caller?.number ?? incoming.from.trim(),
      to: number.number,
      provider: incoming.provider,
      providerCallId: incoming.providerCallId,
      action: plan.action,
      forwardedTo: plan.action === 'forward' ? plan.forwardTo : null,
      by,
    });
    return { call: row, plan: created ? plan : storedPlan(row, plan), created };
  });
}

/** The decision a stored call was given (its greeting as the number has it now). */
function storedPlan(row: CallRow, current: VoicePlan): VoicePlan {
  if (row.action === 'reject') return { action: 'reject' };
  if (row.action === 'forward' && row.forwarded_to) return { action: 'forward', forwardTo: row.forwarded_to };
  return current.action === 'voicemail'
    ? current
    : { action: 'voicemail', message: DEFAULT_VOICEMAIL_GREETING, transcribe: false };
}
