import { type Db, withTx } from '../../db/client.ts';
import { findAutoresponder, updateAutoresponder as updateRow } from '../../db/queries/autoresponders.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type AutoresponderInput, resolveFields } from './autoresponder-input.ts';
import { type Autoresponder, presentAutoresponder } from './present-autoresponder.ts';

/**
 * Changes the given fields of an autoresponder (the others stay; `trigger` and `message` are
 * replaced whole; `group: null` widens it to every number). Stats are kept. 404 AUTO-001 when the
 * account has none by that id.
 */
export async function updateAutoresponder(
  db: Db,
  accountId: string,
  id: string,
  input: AutoresponderInput,
  by: Actor,
  externalsUrl: string,
): Promise<Autoresponder> {
  if (!isId(id)) fail('AUTO-001');
  return withTx(db, async (tx) => {
    const current = (await findAutoresponder(tx, accountId, id)) ?? fail('AUTO-001');
    const fields = await resolveFields(tx, accountId, input, externalsUrl, current);
    const row = (await updateRow(tx, accountId, id, fields, by)) ?? fail('AUTO-001');
    return presentAutoresponder(row);
  });
}
