import { type Db, withTx } from '../../db/client.ts';
import { countAutorespondersLocked, insertAutoresponder } from '../../db/queries/autoresponders.ts';
import { fail } from '../../errors.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type AutoresponderInput, MAX_AUTORESPONDERS, resolveFields } from './autoresponder-input.ts';
import { type Autoresponder, presentAutoresponder } from './present-autoresponder.ts';

/**
 * Saves a new autoresponder (active unless `active: false`). Past MAX_AUTORESPONDERS for the
 * account → AUTO-004; the trigger, keyword and group rules are resolveFields'.
 */
export async function createAutoresponder(
  db: Db,
  accountId: string,
  input: AutoresponderInput,
  by: Actor,
  externalsUrl: string,
): Promise<Autoresponder> {
  return withTx(db, async (tx) => {
    const fields = await resolveFields(tx, accountId, input, externalsUrl);
    if ((await countAutorespondersLocked(tx, accountId)) >= MAX_AUTORESPONDERS) {
      fail('AUTO-004', `An account may hold at most ${MAX_AUTORESPONDERS} autoresponders: delete one first.`);
    }
    const row = await insertAutoresponder(tx, accountId, { ...fields, id: newId(), by });
    return presentAutoresponder(row);
  });
}
