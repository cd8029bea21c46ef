import type { Db } from '../../db/client.ts';
import { purgeExpiredKeys } from '../../db/queries/idempotency-keys.ts';

/** Deletes the Idempotency-Key records past their 24 hours (the window a replay is answered in). */
export async function purgeIdempotencyKeys(db: Db): Promise<void> {
  await purgeExpiredKeys(db);
}
