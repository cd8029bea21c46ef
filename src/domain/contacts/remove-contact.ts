import { type Db, withTx } from '../../db/client.ts';
import { deleteContact } from '../../db/queries/contacts.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { emitEvent } from '../events/emit.ts';
import { presentContact } from './present-contact.ts';

/** Deletes a contact (its list memberships and conversations go with it). Emits contact-removed. */
export async function removeContact(db: Db, accountId: string, contactId: string, by: Actor): Promise<void> {
  if (!isId(contactId)) fail('CONT-002');
  await withTx(db, async (tx) => {
    const row = await deleteContact(tx, accountId, contactId);
    if (!row) fail('CONT-002');
    await emitEvent(tx, accountId, 'contact-removed', {
      ...presentContact(row),
      removed: { at: new Date().toISOString(), by },
    });
  });
}
