import type { Db } from '../../db/client.ts';
import { expireSmppOutbox } from '../../db/queries/smpp.ts';

/**
 * Drops SMPP receipts and inbound texts no receiver bind took within `keepHours`, and submission
 * records well past any receipt.
 */
export async function expireOutbox(db: Db, keepHours: number): Promise<void> {
  await expireSmppOutbox(db, keepHours);
}
