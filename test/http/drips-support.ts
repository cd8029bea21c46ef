/**
 * Test support shared by the drip campaign test files: the service they start and the request
 * helpers they build drips, lists and contacts with. Not a test file itself.
 */
import assert from 'node:assert/strict';
import { task } from '../../src/workers/index.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const workflowEnroll = task('workflow-enroll');

export const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

/** A service with accounts `a` and `b`, running the workflow-enroll worker only (drips run on workflows). */
export async function startDripService() {
  const svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
  const a = await svc.newAccount();
  const b = await svc.newAccount();
  // Entries only: executions are created, but no step runs unless a test runs one.
  svc.startWorkers([workflowEnroll]);
  return { svc, a, b };
}

/** Request helpers against the service `service()` answers (set once the suite's `before` ran). */
export function dripHelpers(service: () => TestService) {
  let seq = 0;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const drips = (acc: TestAccount, rest = '') => `${base(acc)}/dripcampaigns${rest}`;
  const newList = async (acc: TestAccount, json: object = {}) => {
    const res = await call(service().api, 'POST', `${base(acc)}/lists`, {
      auth: acc.auth,
      json: { name: `L${seq++}`, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data.id as string;
  };
  const newContact = async (acc: TestAccount) => {
    const res = await call(service().api, 'POST', `${base(acc)}/contacts`, {
      auth: acc.auth,
      json: { mobile: `+1201${String(7_100_000 + seq++).padStart(7, '0')}`, firstName: `F${seq}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0].id as string;
  };
  const join = async (acc: TestAccount, listId: string, contactIds: string[]) => {
    const res = await call(service().api, 'POST', `${base(acc)}/lists/${listId}/contacts`, {
      auth: acc.auth,
      json: { contactIds },
    });
    assert.ok(res.statusCode < 300, res.body);
  };
  const dripBody = (listId: string, extra: object = {}) => ({
    name: `Drip ${seq++}`,
    description: 'Welcome series',
    trigger: { type: 'list', list: { id: listId }, delay: { days: 1 } },
    messages: [
      { message: 'Welcome {{{firstName}}}', delay: {} },
      { message: 'Day two', delay: { days: 1, hours: 2 } },
    ],
    ...extra,
  });
  const create = async (acc: TestAccount, json: object) => {
    const res = await call(service().api, 'POST', drips(acc), { auth: acc.auth, json });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const get = async (acc: TestAccount, id: string) => {
    const res = await call(service().api, 'GET', drips(acc, `/${id}`), { auth: acc.auth });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  const execution = (acc: TestAccount, id: string, qs = '') =>
    call(service().api, 'GET', drips(acc, `/${id}/executions${qs}`), { auth: acc.auth });
  return { base, drips, newList, newContact, join, dripBody, create, get, execution };
}
