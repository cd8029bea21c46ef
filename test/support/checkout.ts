/** A checkout for tests that need one but do not test checkout itself. */
import { call, type TestAccount, type TestService } from '../helpers.ts';

/** Starts a checkout of a small order (starter, 20 a month) for the account; answers the response. */
export function startSmallCheckout(svc: TestService, acc: TestAccount) {
  return call(
    svc.api,
    'POST',
    `/v1/accounts/${acc.accountId}/checkout?successUrl=https%3A%2F%2Fa.example%2F&cancelUrl=https%3A%2F%2Fa.example%2F`,
    {
      auth: acc.auth,
      json: { plan: 'starter', commitment: 20, frequency: 'monthly', name: 'Ada', email: 'ada@example.com' },
    },
  );
}
