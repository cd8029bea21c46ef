import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import {
  assertValid,
  type PathFixture,
  PUBLISHED_OPERATIONS,
  type PublishedOperation,
  publishedValidator,
} from './published-schemas.ts';
import { nullsIn } from './shape.ts';

/*
 * The contract with clients generated from the vendor's published description: each of its 26
 * operations, called with its own sample request on a running service, answers the published status
 * and a body valid against the response schema the description gives it (published-schemas.ts,
 * transcribed from the description, validated with ajv), and no null anywhere.
 */

const label = (op: PublishedOperation) => `${op.operationId}${op.variant ? ` (${op.variant})` : ''}`;

describe('the published description (OpenAPI 1.0.1): its 26 operations against its own response schemas', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const schema = publishedValidator();
  const mobile = () => `+1201555${String(4000 + seq++).padStart(4, '0')}`;
  const api = (p: string) => `/v1/accounts/${a.accountId}${p}`;

  async function made(method: 'POST', path: string, json: unknown, status = 201) {
    const res = await call(svc.api, method, api(path), { auth: a.auth, json });
    assert.equal(res.statusCode, status, `${method} ${path}: ${res.body.slice(0, 400)}`);
    return body(res).data;
  }
  const sendOne = async () =>
    (
      await made(
        'POST',
        '/messages',
        { contacts: [{ mobile: { number: mobile() } }], template: 'Hello' },
        200,
      )
    ).messages[0];

  const fixtures: Record<PathFixture, () => Promise<string>> = {
    contact: async () => (await made('POST', '/contacts', { firstName: 'Ada', mobile: mobile() }))[0].id,
    message: async () => (await sendOne()).id,
    conversation: async () => (await sendOne()).conversation.id,
    template: async () => (await made('POST', '/templates', { name: 'Test', template: 'Hi' }))[0].id,
    campaign: async () =>
      (await made('POST', '/campaigns', { name: 'Spring', template: 'Hi', trigger: { code: 'M' } })).id,
    webhookUrl: async () => {
      const url = `http://127.0.0.1:9/published/${seq++}?a=1`;
      await made('POST', '/webhooks', { url, eventTypes: ['message-status'] }, 200);
      return encodeURIComponent(url);
    },
  };

  async function invoke(op: PublishedOperation): Promise<LightMyRequestResponse> {
    let path = op.path.replace('{accountId}', a.accountId);
    for (const [param, fixture] of Object.entries(op.params ?? {})) {
      const value = await fixtures[fixture]();
      path = path.replace(`{${param}}`, value);
    }
    const req = op.request?.(mobile) ?? {};
    let json = req.json;
    if (op.operationId === 'auth.token')
      json = { ...(json as object), client_id: a.clientId, client_secret: a.clientSecret };
    return svc.api.inject({
      method: op.method,
      url: req.query ? `${path}?${req.query}` : path,
      headers: {
        ...(op.anonymous ? {} : a.auth),
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(req.headers ?? {}),
      },
      payload: json !== undefined ? JSON.stringify(json) : req.payload,
    });
  }

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
  });
  after(() => svc.close());

  it('its validator refuses the shapes a published client cannot read', () => {
    const contacts = schema('ContactsResponse');
    assert.equal(
      contacts({ success: true, data: { id: 'x' } }),
      false,
      'one object where an array is published',
    );
    assert.equal(contacts({ success: true, data: [{ id: 'x', email: null }] }), false, 'a null');
    assert.equal(contacts({ success: true, data: [{ id: 'x', mobile: '+12015550100' }] }), false);
    assert.equal(contacts({ success: true, data: [{ id: 'x', created: { at: 'yesterday' } }] }), false);
    assert.equal(
      contacts({ success: true, data: [{ id: 'x', extra: 1 }], pagination: { hasNext: false } }),
      true,
    );
    const payload = schema('MessageEventPayload');
    assert.equal(payload({ message: { id: 'm' }, status: 'sent' }), false, 'the message as an object');
    assert.equal(payload({ message: 'Hi', error: { code: 'CONT-001' } }), false, 'the error as an object');
    assert.equal(payload({ message: 'Hi', error: 'Invalid mobile number', status: 'failed' }), true);
  });

  it('lists the 26 operations of the description', () => {
    const ids = new Set(PUBLISHED_OPERATIONS.map((op) => op.operationId));
    assert.equal(ids.size, 26, [...ids].join(', '));
  });

  for (const op of PUBLISHED_OPERATIONS) {
    it(`${label(op)}: ${op.method} ${op.path} answers ${op.status} and its published ${op.response ?? 'empty body'}`, async () => {
      const res = await invoke(op);
      const what = label(op);
      assert.equal(res.statusCode, op.status, `${what}: ${res.body.slice(0, 600)}`);
      if (!op.response) {
        assert.equal(res.body, '', `${what}: a ${op.status} has no body`);
        return;
      }
      const b = body(res);
      assertValid(schema(op.response), b, what);
      const nulls = nullsIn(b);
      assert.deepEqual(nulls, [], `${what} answers null:\n  ${nulls.join('\n  ')}`);
      if (!op.anonymous) assert.equal(b.success, true, what);
    });
  }
});
