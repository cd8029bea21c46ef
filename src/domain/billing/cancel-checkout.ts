import type { Db } from '../../db/client.ts';
import {
  type CheckoutSessionRow,
  closeCheckoutSession,
  findCheckoutSession,
} from '../../db/queries/billing.ts';
import { fail } from '../../errors.ts';

/**
 * Cancels an open checkout session (the payer chose Cancel, or the provider let it expire); a
 * session already completed or canceled stays as it is. Unknown session → BILL-003.
 */
export async function cancelCheckout(
  db: Db,
  accountId: string,
  ref: { provider: string; providerSessionId: string },
): Promise<CheckoutSessionRow> {
  const session =
    (await findCheckoutSession(db, accountId, ref.provider, ref.providerSessionId)) ?? fail('BILL-003');
  if (await closeCheckoutSession(db, accountId, session.id, 'canceled'))
    return { ...session, status: 'canceled' };
  return (await findCheckoutSession(db, accountId, ref.provider, ref.providerSessionId)) ?? session;
}
