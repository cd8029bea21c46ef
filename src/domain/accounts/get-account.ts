import type { Queryable } from '../../db/client.ts';
import { type AccountRow, findAccount } from '../../db/queries/accounts.ts';
import { fail } from '../../errors.ts';
import { stamp } from '../actor.ts';
import { keywordReplies } from './keyword-replies.ts';

/** The Account shape of the API. */
export function presentAccount(a: AccountRow) {
  return {
    id: a.id,
    name: a.name,
    plan: a.plan,
    status: a.status,
    trial: a.status === 'trial',
    timezone: a.timezone,
    currency: a.currency,
    smartEncoding: a.smart_encoding,
    // Left out when the account has no default validity (presenters never carry null).
    ...(a.validity_period === null ? {} : { validityPeriod: a.validity_period }),
    dispatchWeight: a.dispatch_weight,
    keywordReplies: keywordReplies(a),
    created: stamp(a.created_at, a.created_by),
    updated: stamp(a.updated_at, a.updated_by),
  };
}

export async function getAccount(db: Queryable, accountId: string): Promise<AccountRow> {
  return (await findAccount(db, accountId)) ?? fail('ACCT-001');
}
