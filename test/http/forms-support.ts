/**
 * Test support shared by the lead form test files: the request helpers they create forms and lists
 * with. Not a test file itself.
 */
import assert from 'node:assert/strict';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';

export const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

/** Request helpers against the service `service()` answers (set once the suite's `before` ran). */
export function formHelpers(service: () => TestService) {
  let seq = 0;
  const forms = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/forms${rest}`;
  const newForm = async (acc: TestAccount, json: object = {}) => {
    const res = await call(service().api, 'POST', forms(acc), {
      auth: acc.auth,
      json: { name: `Form ${seq++}`, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const newList = async (acc: TestAccount, json: object = {}) => {
    const res = await call(service().api, 'POST', `/v1/accounts/${acc.accountId}/lists`, {
      auth: acc.auth,
      json: { name: `List ${seq++}`, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  return { forms, newForm, newList };
}
