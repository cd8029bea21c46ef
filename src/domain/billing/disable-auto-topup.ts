import type { Queryable } from '../../db/client.ts';
import { disableAutoTopup as disable } from '../../db/queries/billing-topups.ts';
import type { Actor } from '../actor.ts';

/**
 * Disables auto top-up: no new top-up starts (one already being charged finishes). Idempotent:
 * disabling it when it is off, or was never set, succeeds too.
 */
export async function disableAutoTopup(db: Queryable, accountId: string, by: Actor): Promise<void> {
  await disable(db, accountId, by);
}
