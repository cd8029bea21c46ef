import type { Queryable } from '../../db/client.ts';
import { findCall } from '../../db/queries/calls.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Call, presentCalls } from './present-call.ts';

/** One of the account's calls; none (or another account's, or a non-id) is 404 CALL-001. */
export async function getCall(db: Queryable, accountId: string, callId: string): Promise<Call> {
  const row = isId(callId) ? await findCall(db, accountId, callId) : undefined;
  return (await presentCalls(db, accountId, [row ?? fail('CALL-001')]))[0];
}
