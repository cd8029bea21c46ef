/**
 * Test support shared by the workflow test files: definitions to build on and the request helpers
 * they create workflows, contacts and enrollments with. Not a test file itself.
 */
import assert from 'node:assert/strict';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

export const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

export const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/workflows`;

export const send = (message = 'Hi {{{firstName}}}') => ({
  id: 'send',
  type: { id: 'action.send-message' },
  config: { message },
});

/** trigger.manual → send → end. */
export const simple = () => ({
  nodes: [{ id: 'start', type: { id: 'trigger.manual' } }, send(), { id: 'end', type: { id: 'action.end' } }],
  edges: [
    { id: 'e1', source: 'start', target: 'send' },
    { id: 'e2', source: 'send', target: 'end' },
  ],
});

export const expectError = async (res: Awaited<ReturnType<typeof call>>, status: number, code: string) => {
  assert.equal(res.statusCode, status, res.body);
  const err = body(res);
  assert.equal(err.success, false);
  assert.equal(err.error.code, code, res.body);
  return err.error.message as string;
};

/** A service with accounts `a` and `b`. */
export async function startWorkflowService() {
  const svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
  const a = await svc.newAccount();
  const b = await svc.newAccount();
  return { svc, a, b };
}

/** Request helpers against the service `service()` answers (set once the suite's `before` ran). */
export function workflowHelpers(service: () => TestService) {
  let seq = 0;
  const create = async (acc: TestAccount, json: object) => {
    const res = await call(service().api, 'POST', base(acc), { auth: acc.auth, json });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const createSimple = (acc: TestAccount, activate = false) =>
    create(acc, { name: `Flow ${seq++}`, versions: [{ name: 'v1', definition: simple(), activate }] });
  const enroll = (acc: TestAccount, workflowId: string, contactId: string) =>
    call(service().api, 'POST', `${base(acc)}/${workflowId}/enrollments`, {
      auth: acc.auth,
      json: { contactId },
    });
  const newContact = async (acc: TestAccount) => {
    const res = await call(service().api, 'POST', `/v1/accounts/${acc.accountId}/contacts`, {
      auth: acc.auth,
      json: { mobile: `+1201${String(7_000_000 + seq++).padStart(7, '0')}`, firstName: 'Ann' },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0].id as string;
  };
  return { create, createSimple, enroll, newContact };
}
