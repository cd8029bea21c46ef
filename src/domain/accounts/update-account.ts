import type { Queryable } from '../../db/client.ts';
import { type AccountRow, updateSendingSettings } from '../../db/queries/accounts.ts';
import { fail } from '../../errors.ts';
import { MAX_VALIDITY_SECONDS, MIN_VALIDITY_SECONDS } from '../../messaging/validity.ts';
import type { Actor } from '../actor.ts';

/** The account fields PUT …/accounts/{accountId} changes; absent ones stay as they are. */
export interface AccountUpdate {
  /** Replace typographic look-alikes with GSM-7 characters before counting and sending. */
  smartEncoding?: boolean;
  /** Default validity of the account's messages, in seconds (MIN_VALIDITY_SECONDS..MAX_VALIDITY_SECONDS); null: none. */
  validityPeriod?: number | null;
}

/** Changes the account's sending settings (docs/encoding.md); an unknown account is ACCT-001. */
export async function updateAccount(
  db: Queryable,
  accountId: string,
  input: AccountUpdate,
  by: Actor,
): Promise<AccountRow> {
  const v = input.validityPeriod;
  if (
    v !== undefined &&
    v !== null &&
    !(Number.isInteger(v) && v >= MIN_VALIDITY_SECONDS && v <= MAX_VALIDITY_SECONDS)
  )
    fail(
      'VAL-001',
      `\`validityPeriod\` must be whole seconds from ${MIN_VALIDITY_SECONDS} to ${MAX_VALIDITY_SECONDS}, or null to remove it.`,
    );
  return (await updateSendingSettings(db, accountId, input, by)) ?? fail('ACCT-001');
}
