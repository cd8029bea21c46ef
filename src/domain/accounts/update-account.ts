import type { Queryable } from '../../db/client.ts';
import { type AccountRow, updateSendingSettings } from '../../db/queries/accounts.ts';
import { fail } from '../../errors.ts';
import type { Actor } from '../actor.ts';

/** The account fields PUT …/accounts/{accountId} changes; absent ones stay as they are. */
export interface AccountUpdate {
  /** Replace typographic look-alikes with GSM-7 characters before counting and sending. */
  smartEncoding?: boolean;
  /** Default validity of the account's messages, in seconds (bounds in the request schema); null: none. */
  validityPeriod?: number | null;
}

/** Changes the account's sending settings (docs/encoding.md); an unknown account is ACCT-001. */
export async function updateAccount(
  db: Queryable,
  accountId: string,
  input: AccountUpdate,
  by: Actor,
): Promise<AccountRow> {
  return (await updateSendingSettings(db, accountId, input, by)) ?? fail('ACCT-001');
}
