import type { Queryable } from '../../db/client.ts';
import { findAutoresponder } from '../../db/queries/autoresponders.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Autoresponder, presentAutoresponder } from './present-autoresponder.ts';

/** One of the account's autoresponders; none (or another account's) is 404 AUTO-001. */
export async function getAutoresponder(db: Queryable, accountId: string, id: string): Promise<Autoresponder> {
  const row = isId(id) ? await findAutoresponder(db, accountId, id) : undefined;
  return presentAutoresponder(row ?? fail('AUTO-001'));
}
