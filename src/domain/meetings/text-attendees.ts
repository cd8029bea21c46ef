import type { Queryable } from '../../db/client.ts';
import { withSavepoint } from '../../db/client.ts';
import { findAccount } from '../../db/queries/accounts.ts';
import type { MeetingPerson } from '../../db/queries/meetings-events.ts';
import { AppError } from '../../errors.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import { formatLocal } from '../../util/zoned-time.ts';
import type { Actor } from '../actor.ts';
import { groupSenderPool, sendersInOrder } from '../numbers/group-sender-pool.ts';
import { queueMessage } from '../send/accept/queue-message.ts';

/** An attendee who can be texted: one with a mobile, whose id is their contact's id. */
export interface TextableAttendee extends MeetingPerson {
  mobile: string;
}

/** The account's name, for the head of a text ("Acme: …"). */
export async function accountName(tx: Queryable, accountId: string): Promise<string> {
  return (await findAccount(tx, accountId))?.name ?? 'Sparrow';
}

/** "<name> on <local time>" for texts, in the meeting's time zone. */
export function meetingWhen(name: string, timezone: string, start: Date | number): string {
  return `"${name}" on ${formatLocal(timezone, new Date(start).getTime())}`;
}

/**
 * Queues one text to each attendee with a mobile, from the first number of the account's default
 * group, in the caller's transaction. A text is an ordinary message: an opted-out or blocked
 * contact gets a failed, uncharged message (CONT-010) rather than a text. A text that cannot be
 * queued for an expected reason (no sending number, balance too low) is skipped and undone
 * alone, so the booking or reminder it belongs to still commits. Answers how many were queued.
 */
export async function textAttendees(
  tx: Queryable,
  accountId: string,
  attendees: MeetingPerson[],
  body: string,
  by: Actor,
  prices: PriceTable,
): Promise<number> {
  const textable = attendees.filter((a): a is TextableAttendee => typeof a.mobile === 'string');
  if (textable.length === 0) return 0;
  let sender: { id: string; number: string } | undefined;
  try {
    const pool = await groupSenderPool(tx, accountId);
    sender = sendersInOrder(pool)[0];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
  }
  if (!sender) return 0;
  const from = sender;
  let queued = 0;
  for (const a of textable) {
    try {
      await withSavepoint(tx, () =>
        queueMessage(
          tx,
          accountId,
          {
            contactId: a.id,
            phoneNumberId: from.id,
            from: from.number,
            to: a.mobile,
            body,
            prices,
          },
          by,
        ),
      );
      queued++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
    }
  }
  return queued;
}
