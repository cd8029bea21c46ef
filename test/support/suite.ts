/** Suite set-up shared by the test files: a service and an account for the tests of a describe. */
import { after, before } from 'node:test';
import type { Config } from '../../src/config.ts';
import { startTestService, type TestAccount, type TestService } from '../helpers.ts';

/** The service and account of a suite, set before its first test runs. */
export interface ServiceWithAccount {
  svc: TestService;
  a: TestAccount;
}

/**
 * Inside a `describe`: starts a service (`overrides`, `opts.env` as for startTestService) and a
 * new account on it (`opts.account`) before the tests, and closes the service after them. Read
 * `svc` and `a` of the answer inside the tests.
 */
export function serviceWithAccount(
  overrides: Partial<Config> = {},
  opts: { env?: Record<string, string>; account?: { balance?: number } } = {},
): ServiceWithAccount {
  const s = {} as ServiceWithAccount;
  before(async () => {
    s.svc = await startTestService(overrides, { env: opts.env });
    s.a = await s.svc.newAccount(opts.account);
  });
  after(() => s.svc.close());
  return s;
}
