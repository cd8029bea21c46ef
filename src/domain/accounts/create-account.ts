import type { Db } from '../../db/client.ts';
import { withTx } from '../../db/client.ts';
import { findAccount, insertAccount } from '../../db/queries/accounts.ts';
import { newId } from '../../util/ids.ts';
import { type Actor, SYSTEM } from '../actor.ts';
import { provisionDefaultGroup } from '../numbers/provision-default-group.ts';

/** Trial credit a new account starts with, in the account currency. */
export const TRIAL_CREDIT = 20;

/**
 * Creates an account with its default group and simulator number, in one transaction.
 * With an explicit id that already exists, answers the existing account (idempotent bootstrap).
 */
export async function createAccount(
  db: Db,
  input: { id?: string; name: string; timezone?: string; balance?: number },
  by: Actor = SYSTEM,
) {
  if (input.id) {
    const existing = await findAccount(db, input.id);
    if (existing) return { account: existing, created: false };
  }
  return withTx(db, async (tx) => {
    const account = await insertAccount(tx, {
      id: input.id ?? newId(),
      name: input.name,
      timezone: input.timezone ?? 'UTC',
      balance: input.balance ?? TRIAL_CREDIT,
      createdBy: by,
    });
    await provisionDefaultGroup(tx, account.id, by);
    return { account, created: true };
  });
}
