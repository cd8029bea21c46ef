import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { type Fixture, OPERATIONS, type Operation, Pagination } from './published.ts';
import { mismatches, nullsIn, type Shape } from './shape.ts';

/*
 * The contract with existing clients of the vendor's interface: every operation its published
 * description shows (test/contract/published.ts), called with its own sample request on a running
 * service, answers the published status, and `data` (and `pagination`) of the published types:
 * objects stay objects, strings stay strings, numbers numbers, arrays arrays. Extra fields are
 * allowed; a null is not, anywhere in an answer (the description marks nothing nullable; an unset
 * field is left out).
 */

function assertShape(value: unknown, shape: Shape, what: string) {
  const found = mismatches(value, shape);
  assert.deepEqual(found, [], `${what}:\n  ${found.join('\n  ')}`);
}

const label = (op: Operation) => `${op.method} ${op.path}${op.variant ? ` (${op.variant})` : ''}`;

describe('the published description (OpenAPI 1.0.1): every operation, its status and its shapes', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const mobile = () => `+1201555${String(3000 + seq++).padStart(4, '0')}`;
  const api = (path: string) => `/v1/accounts/${a.accountId}${path}`;

  async function created(method: 'POST' | 'PUT', path: string, json: unknown, status = 201) {
    const res = await call(svc.api, method, api(path), { auth: a.auth, json });
    assert.equal(res.statusCode, status, `${method} ${path}: ${res.body.slice(0, 400)}`);
    return body(res).data;
  }

  async function sendOne(): Promise<{ id: string; conversation: { id: string } }> {
    const sent = await created(
      'POST',
      '/messages',
      { contacts: [{ mobile: { number: mobile(), country: 'US' }, firstName: 'Ada' }], template: 'Hello' },
      200,
    );
    return sent.messages[0];
  }

  /** A fresh record for an operation to act on: the value of its path parameter. */
  const fixtures: Record<Fixture, () => Promise<string>> = {
    contact: async () => (await created('POST', '/contacts', { firstName: 'Ada', mobile: mobile() }))[0].id,
    message: async () => (await sendOne()).id,
    conversation: async () => {
      const m = await sendOne();
      // A reply, so the conversation also has an unread message.
      const c = await call(svc.api, 'GET', api(`/conversations/${m.conversation.id}`), { auth: a.auth });
      const conv = body(c).data;
      const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: conv.contact.mobile.number, to: conv.phoneNumber.number, text: 'hello' },
      });
      assert.equal(inbound.statusCode, 200, inbound.body);
      return m.conversation.id;
    },
    template: async () =>
      (
        await created('POST', '/templates', { name: 'Welcome', type: 'SMS', template: 'Hi {{{firstName}}}' })
      )[0].id,
    campaign: async () =>
      (await created('POST', '/campaigns', { name: 'Spring', template: 'Hello', trigger: { code: 'M' } })).id,
    form: async () => (await created('POST', '/forms', { name: 'Sign-up' })).id,
    link: async () => (await created('POST', '/links', { url: `https://example.com/offer/${seq++}` })).id,
    webhookUrl: async () => {
      const url = `http://127.0.0.1:9/hooks/${seq++}?a=1&b=2`;
      await created('POST', '/webhooks', { url, eventTypes: ['message-status'] }, 200);
      return encodeURIComponent(url);
    },
    meetingEvent: async () =>
      (
        await created('POST', '/meetingevents', {
          name: 'Demo',
          slug: `c-${randomBytes(5).toString('hex')}`,
          durations: [30],
          timezone: 'UTC',
        })
      ).id,
    meeting: async () => {
      const ALL_DAY = [{ start: { hour: 0, minute: 0 }, end: { hour: 24, minute: 0 } }];
      const week = Object.fromEntries(
        ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((d) => [d, ALL_DAY]),
      );
      const slug = `c-${randomBytes(5).toString('hex')}`;
      await created('POST', '/meetingevents', {
        name: 'Demo',
        slug,
        durations: [30],
        timezone: 'UTC',
        availability: week,
      });
      const d = new Date(Date.now() + 2 * 86_400_000);
      const start = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 10 + (seq++ % 8)));
      const res = await call(svc.externals, 'POST', `/v1/meetingevents/${slug}/book`, {
        json: {
          start: start.toISOString(),
          duration: 30,
          attendees: [{ firstName: 'Ada', mobile: mobile() }],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      return body(res).data.id;
    },
  };

  /** Calls the operation with its sample request (and fresh records for its path). */
  async function invoke(op: Operation): Promise<LightMyRequestResponse> {
    let path = op.path.replace('{accountId}', a.accountId);
    for (const [param, fixture] of Object.entries(op.params ?? {})) {
      const value = await fixtures[fixture]();
      path = path.replace(`{${param}}`, value);
    }
    const req = op.request?.(mobile) ?? {};
    let json = req.json;
    if (op.path === '/oauth2/token')
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

  it('checks its own shapes: wrong types, nulls and missing required fields are each reported', () => {
    assert.ok(
      mismatches({ id: 'x', mobile: '+12015550100' }, { id: 'string', mobile: { number: 'string' } }).length,
    );
    assert.ok(mismatches({ id: 'x', email: null }, { id: 'string', email: 'string' }).length);
    assert.ok(mismatches({ id: 'x' }, { id: 'string', '!phoneNumber': 'object' }).length);
    assert.ok(mismatches({ n: '1' }, { n: 'number' }).length);
    assert.ok(mismatches({ l: {} }, { l: ['string'] }).length);
    assert.ok(mismatches({ t: '2024-01-01' }, { t: 'timestamp' }).length);
    assert.deepEqual(mismatches({ id: 'x', extra: 1 }, { id: 'string' }), []);
    assert.deepEqual(nullsIn({ a: [{ b: null }], c: 1 }), ['a[0].b is null']);
  });

  it('walks every area of the published description', () => {
    const areas = new Set(OPERATIONS.map((op) => op.area));
    for (const area of [
      'auth',
      'accounts',
      'contacts',
      'messages',
      'conversations',
      'campaigns',
      'templates',
      'webhooks',
      'forms',
      'links',
      'availablephonenumbers',
      'tools',
      'meetings',
    ])
      assert.ok(areas.has(area), area);
  });

  for (const op of OPERATIONS) {
    it(`${label(op)} answers ${op.status} and the published shape`, async () => {
      const res = await invoke(op);
      const what = label(op);
      assert.equal(res.statusCode, op.status, `${what}: ${res.body.slice(0, 600)}`);
      if (op.status === 204) {
        assert.equal(res.body, '', `${what}: a 204 has no body`);
        return;
      }
      const b = body(res);
      const nulls = nullsIn(b);
      assert.deepEqual(
        nulls,
        [],
        `${what} answers null (leave the field out instead):\n  ${nulls.join('\n  ')}`,
      );
      if (op.raw) {
        assertShape(b, op.shape ?? 'object', what);
        return;
      }
      assert.equal(b.success, true, what);
      if (op.list) {
        assertShape(b.data, [op.shape ?? 'object'], what);
        assert.ok(b.data.length > 0, `${what}: the sample answers at least one item`);
        assertShape(b.pagination, Pagination, `${what} pagination`);
      } else if (op.shape) assertShape(b.data, op.shape, what);
    });
  }

  it('POST contacts (CSV): the answer counts what it did and names each row that failed', async () => {
    const op = OPERATIONS.find((o) => o.variant === 'CSV upload')!;
    const res = await invoke(op);
    assert.equal(res.statusCode, 201, res.body);
    const d = body(res).data;
    assert.equal(d.submitted, 3);
    assert.equal(d.inserted, 2);
    assert.equal(d.updated, 0);
    assert.equal(d.success, 2);
    assert.equal(d.contacts.length, 2);
    assert.equal(d.contacts[0].attributes.favouriteColour, 'blue', 'an extra column is an attribute');
    assert.equal(d.errors.length, 1);
    assert.equal(d.errors[0].error.code, 'CONT-001');
    // The same rows again: the two mobiles exist, so they are updated (mergeStrategy=append), not inserted.
    const again = await svc.api.inject({
      method: 'POST',
      url: `/v1/accounts/${a.accountId}/contacts?mergeStrategy=append`,
      headers: { ...a.auth, 'content-type': 'text/csv' },
      payload: `country,firstName,mobile\nUS,Bo,${d.contacts[0].mobile.number}\nUS,Cy,${d.contacts[1].mobile.number}\n`,
    });
    assert.equal(again.statusCode, 201, again.body);
    const d2 = body(again).data;
    assert.deepEqual(
      { submitted: d2.submitted, inserted: d2.inserted, updated: d2.updated, success: d2.success },
      { submitted: 2, inserted: 0, updated: 2, success: 2 },
    );
    assert.deepEqual(nullsIn(body(again)), []);
  });

  it('POST messages: the invalid contact is answered with its error, the valid one as a message', async () => {
    const op = OPERATIONS.find((o) => o.area === 'messages' && o.method === 'POST')!;
    const res = await invoke(op);
    const d = body(res).data;
    assert.equal(d.requested, 2);
    assert.equal(d.valid, 1);
    assert.equal(d.queued, 1);
    assert.equal(d.invalid.length, 1);
    assert.equal(d.invalid[0].error.code, 'CONT-001');
    assert.equal(d.messages[0].message, 'Hi Ada, Ada!', 'both merge-field spellings are filled in');
  });
});
