import type { Queryable } from '../../db/client.ts';
import { requestSync as requestRow } from '../../db/queries/integrations.ts';
import { fail } from '../../errors.ts';

/** Makes a connection's sync due now (the worker takes it on its next round). */
export async function requestSync(db: Queryable, accountId: string, id: string) {
  return (await requestRow(db, accountId, id)) ?? fail('INT-001');
}
