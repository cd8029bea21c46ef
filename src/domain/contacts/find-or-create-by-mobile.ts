import type { Queryable } from '../../db/client.ts';
import { type ContactRow, findContactByMobile, insertContactIfAbsent } from '../../db/queries/contacts.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvent } from '../events/emit.ts';
import { presentContact } from './present-contact.ts';

/**
 * The account's contact with this mobile number, created when there is none (for senders and inbound
 * messages). Race-safe: concurrent callers converge on one row through the unique (account, mobile)
 * index. Emits `contact-created` in the caller's transaction when it creates.
 */
export async function findOrCreateContactByMobile(
  tx: Queryable,
  accountId: string,
  input: {
    number: string;
    country: string;
    lineType?: string;
    firstName?: string;
    lastName?: string;
    email?: string;
  },
  by: Actor,
): Promise<{ contact: ContactRow; created: boolean }> {
  const existing = await findContactByMobile(tx, accountId, input.number);
  if (existing) return { contact: existing, created: false };
  const inserted = await insertContactIfAbsent(tx, accountId, {
    id: newId(),
    by,
    fields: {
      firstName: input.firstName,
      lastName: input.lastName,
      email: input.email,
      mobile: {
        number: input.number,
        country: input.country,
        valid: true,
        lineType: input.lineType ?? 'unknown',
      },
    },
  });
  if (inserted) {
    await emitEvent(tx, accountId, 'contact-created', presentContact(inserted));
    return { contact: inserted, created: true };
  }
  // Another transaction inserted it between our read and insert; ON CONFLICT waited for it to commit.
  const winner = await findContactByMobile(tx, accountId, input.number);
  if (!winner) throw new Error(`contact for ${input.number} vanished during find-or-create`);
  return { contact: winner, created: false };
}
