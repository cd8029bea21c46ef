import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { sign } from '../../src/domain/webhooks/signing.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const URL_A = 'http://127.0.0.1:9/hooks/a';

describe('webhooks API', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let bHookId: string;
  const path = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/webhooks${rest}`;
  const create = (acc: TestAccount, url: string, eventTypes: string[] = ['contact-created']) =>
    call(svc.api, 'POST', path(acc), { auth: acc.auth, json: { url, eventTypes } });

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
    bHookId = body(await create(b, 'http://127.0.0.1:9/hooks/b')).data.id;
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/webhooks', () => {
    it('subscribes and answers the Webhook with a whsec_ secret', async () => {
      const res = await create(a, URL_A, ['contact-created', 'message-status']);
      assert.equal(res.statusCode, 200);
      const { success, data } = body(res);
      assert.equal(success, true);
      assert.equal(data.type, 'webhook');
      assert.equal(data.destination, URL_A);
      assert.equal(data.url, URL_A);
      assert.deepEqual(data.eventTypes, ['contact-created', 'message-status']);
      assert.equal(data.status, 'active');
      assert.match(data.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      const key = Buffer.from(data.secret.slice(6), 'base64');
      assert.ok(key.length >= 24 && key.length <= 64);
      assert.match(data.created.at, /^\d{4}-\d\d-\d\dT/);
    });

    it('accepts the destination named `destination` and answers it as both names', async () => {
      const url = 'http://127.0.0.1:9/hooks/by-destination';
      const res = await call(svc.api, 'POST', path(a), {
        auth: a.auth,
        json: { destination: url, eventTypes: ['contact-created'] },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.destination, url);
      assert.equal(body(res).data.url, url);
    });

    it('accepts `url` and `destination` together when they agree', async () => {
      const url = 'http://127.0.0.1:9/hooks/both-same';
      const res = await call(svc.api, 'POST', path(a), {
        auth: a.auth,
        json: { url, destination: url, eventTypes: ['contact-created'] },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.url, url);
    });

    it('rejects `url` and `destination` that differ with 400 HOOK-005', async () => {
      const res = await call(svc.api, 'POST', path(a), {
        auth: a.auth,
        json: {
          url: 'http://127.0.0.1:9/one',
          destination: 'http://127.0.0.1:9/two',
          eventTypes: ['contact-created'],
        },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'HOOK-005');
    });

    it('rejects a subscription without `url` or `destination` with 400', async () => {
      const res = await call(svc.api, 'POST', path(a), {
        auth: a.auth,
        json: { eventTypes: ['contact-created'] },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it('rejects an unknown event type with 400', async () => {
      const res = await create(a, 'http://127.0.0.1:9/x', ['contact-exploded']);
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it('rejects empty or missing eventTypes with 400', async () => {
      assert.equal((await create(a, 'http://127.0.0.1:9/x', [])).statusCode, 400);
      const res = await call(svc.api, 'POST', path(a), {
        auth: a.auth,
        json: { url: 'http://127.0.0.1:9/x' },
      });
      assert.equal(res.statusCode, 400);
    });

    it('rejects a URL that is not absolute http(s) with 400', async () => {
      for (const url of ['/relative', 'ftp://example.com/x', 'not a url', 'http://user:pw@127.0.0.1/x']) {
        const res = await create(a, url);
        assert.equal(res.statusCode, 400, url);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it('rejects a second subscription for the same URL with 409 HOOK-004', async () => {
      const url = 'http://127.0.0.1:9/dup';
      assert.equal((await create(a, url)).statusCode, 200);
      const res = await create(a, url);
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'HOOK-004');
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'POST', path(a), {
        json: { url: URL_A, eventTypes: ['contact-created'] },
      });
      assert.equal(res.statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      const res = await call(svc.api, 'POST', path(b), {
        auth: a.auth,
        json: { url: URL_A, eventTypes: ['contact-created'] },
      });
      assert.equal(res.statusCode, 403);
    });

    it('needs the webhooks:write scope', async () => {
      const reader = await svc.newAccount({ scopes: ['webhooks:read'] });
      const res = await create(reader, 'http://127.0.0.1:9/r');
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-004');
    });
  });

  describe('GET /v1/accounts/:accountId/webhooks', () => {
    it('lists only this account’s subscriptions, paged, without secrets', async () => {
      const acc = await svc.newAccount();
      for (const n of [1, 2, 3]) await create(acc, `http://127.0.0.1:9/list/${n}`);
      const res = await call(svc.api, 'GET', `${path(acc)}?limit=2`, { auth: acc.auth });
      assert.equal(res.statusCode, 200);
      const { data, pagination } = body(res);
      assert.equal(data.length, 2);
      assert.deepEqual(pagination, { limit: 2, offset: 0, hasNext: true, totalCount: 3 });
      assert.equal(data[0].destination, 'http://127.0.0.1:9/list/1');
      assert.equal(data[0].url, 'http://127.0.0.1:9/list/1');
      assert.equal(data[0].secret, undefined);
      const next = body(await call(svc.api, 'GET', `${path(acc)}?limit=2&offset=2`, { auth: acc.auth }));
      assert.equal(next.data.length, 1);
      assert.equal(next.pagination.hasNext, false);
    });

    it('rejects limit out of range with 400', async () => {
      const res = await call(svc.api, 'GET', `${path(a)}?limit=101`, { auth: a.auth });
      assert.equal(res.statusCode, 400);
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'GET', path(a))).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'GET', path(b), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/webhooks/:webhookId', () => {
    it('answers the subscription by id and by URL-encoded destination', async () => {
      const created = body(await create(a, 'http://127.0.0.1:9/get?x=1')).data;
      const byId = await call(svc.api, 'GET', path(a, `/${created.id}`), { auth: a.auth });
      assert.equal(byId.statusCode, 200);
      assert.equal(body(byId).data.id, created.id);
      assert.equal(body(byId).data.url, 'http://127.0.0.1:9/get?x=1');
      assert.equal(body(byId).data.secret, undefined);
      const byUrl = await call(svc.api, 'GET', path(a, `/${encodeURIComponent(created.destination)}`), {
        auth: a.auth,
      });
      assert.equal(byUrl.statusCode, 200);
      assert.equal(body(byUrl).data.id, created.id);
    });

    it("answers 404 HOOK-001 for another account's webhook and for a bad id", async () => {
      const res = await call(svc.api, 'GET', path(a, `/${bHookId}`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'HOOK-001');
      assert.equal((await call(svc.api, 'GET', path(a, '/nope'), { auth: a.auth })).statusCode, 404);
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'GET', path(a, `/${bHookId}`))).statusCode, 401);
    });
  });

  describe('PUT /v1/accounts/:accountId/webhooks/:webhookId', () => {
    it('changes event types and destination, disables and re-enables', async () => {
      const created = body(await create(a, 'http://127.0.0.1:9/put')).data;
      let res = await call(svc.api, 'PUT', path(a, `/${created.id}`), {
        auth: a.auth,
        json: { eventTypes: ['contact-removed', 'contact-removed'], url: 'http://127.0.0.1:9/put2' },
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data.eventTypes, ['contact-removed']);
      assert.equal(body(res).data.destination, 'http://127.0.0.1:9/put2');
      assert.equal(body(res).data.url, 'http://127.0.0.1:9/put2');
      res = await call(svc.api, 'PUT', path(a, `/${created.id}`), {
        auth: a.auth,
        json: { destination: 'http://127.0.0.1:9/put3' },
      });
      assert.equal(body(res).data.url, 'http://127.0.0.1:9/put3');
      res = await call(svc.api, 'PUT', path(a, `/${created.id}`), {
        auth: a.auth,
        json: { url: 'http://127.0.0.1:9/put4', destination: 'http://127.0.0.1:9/put5' },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'HOOK-005');
      res = await call(svc.api, 'PUT', path(a, `/${created.id}`), {
        auth: a.auth,
        json: { status: 'disabled' },
      });
      assert.equal(body(res).data.status, 'disabled');
      assert.equal(body(res).data.disabled.reason, 'Disabled through the API.');
      res = await call(svc.api, 'PUT', path(a, `/${created.id}`), {
        auth: a.auth,
        json: { status: 'active' },
      });
      assert.equal(body(res).data.status, 'active');
      assert.equal(body(res).data.disabled, undefined);
    });

    it('rejects an invalid body with 400', async () => {
      const created = body(await create(a, 'http://127.0.0.1:9/put-bad')).data;
      const res = await call(svc.api, 'PUT', path(a, `/${created.id}`), {
        auth: a.auth,
        json: { eventTypes: ['nope'] },
      });
      assert.equal(res.statusCode, 400);
      const res2 = await call(svc.api, 'PUT', path(a, `/${created.id}`), {
        auth: a.auth,
        json: { url: 'gopher://x' },
      });
      assert.equal(res2.statusCode, 400);
    });

    it("answers 404 for another account's webhook", async () => {
      const res = await call(svc.api, 'PUT', path(a, `/${bHookId}`), {
        auth: a.auth,
        json: { status: 'disabled' },
      });
      assert.equal(res.statusCode, 404);
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'PUT', path(a, `/${bHookId}`), { json: {} })).statusCode, 401);
    });
  });

  describe('DELETE /v1/accounts/:accountId/webhooks/:webhookIdOrUrl', () => {
    it('unsubscribes by URL-encoded destination with 204', async () => {
      const url = 'https://127.0.0.1:9/del/by-url?token=a%2Fb&x=1';
      const created = body(await create(a, url)).data;
      const res = await call(svc.api, 'DELETE', path(a, `/${encodeURIComponent(url)}`), { auth: a.auth });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.equal((await call(svc.api, 'GET', path(a, `/${created.id}`), { auth: a.auth })).statusCode, 404);
    });

    it('unsubscribes by id with 204', async () => {
      const created = body(await create(a, 'http://127.0.0.1:9/del/by-id')).data;
      assert.equal(
        (await call(svc.api, 'DELETE', path(a, `/${created.id}`), { auth: a.auth })).statusCode,
        204,
      );
      assert.equal(
        (await call(svc.api, 'DELETE', path(a, `/${created.id}`), { auth: a.auth })).statusCode,
        404,
      );
    });

    it("answers 404 for another account's webhook, by id or URL, and leaves it", async () => {
      assert.equal((await call(svc.api, 'DELETE', path(a, `/${bHookId}`), { auth: a.auth })).statusCode, 404);
      const byUrl = await call(
        svc.api,
        'DELETE',
        path(a, `/${encodeURIComponent('http://127.0.0.1:9/hooks/b')}`),
        { auth: a.auth },
      );
      assert.equal(byUrl.statusCode, 404);
      assert.equal((await call(svc.api, 'GET', path(b, `/${bHookId}`), { auth: b.auth })).statusCode, 200);
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'DELETE', path(a, `/${bHookId}`))).statusCode, 401);
    });

    it('rejects a read-only token with 403', async () => {
      const reader = await svc.newAccount({ scopes: ['webhooks:read'] });
      assert.equal(
        (await call(svc.api, 'DELETE', path(reader, `/${bHookId}`), { auth: reader.auth })).statusCode,
        403,
      );
    });
  });

  describe('POST /v1/accounts/:accountId/webhooks/:webhookId/rotate-secret', () => {
    it('answers a new secret', async () => {
      const created = body(await create(a, 'http://127.0.0.1:9/rotate')).data;
      const res = await call(svc.api, 'POST', path(a, `/${created.id}/rotate-secret`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.match(body(res).data.secret, /^whsec_/);
      assert.notEqual(body(res).data.secret, created.secret);
    });

    it("answers 404 for another account's webhook and for a non-id", async () => {
      assert.equal(
        (await call(svc.api, 'POST', path(a, `/${bHookId}/rotate-secret`), { auth: a.auth })).statusCode,
        404,
      );
      assert.equal(
        (await call(svc.api, 'POST', path(a, '/zzz/rotate-secret'), { auth: a.auth })).statusCode,
        404,
      );
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'POST', path(a, `/${bHookId}/rotate-secret`))).statusCode, 401);
    });
  });

  describe('GET /v1/accounts/:accountId/webhooks/:webhookId/deliveries', () => {
    it('answers an empty page for a new subscription', async () => {
      const created = body(await create(a, 'http://127.0.0.1:9/deliveries')).data;
      const res = await call(svc.api, 'GET', path(a, `/${created.id}/deliveries`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data, []);
      assert.equal(body(res).pagination.totalCount, 0);
    });

    it('rejects a bad offset with 400', async () => {
      const res = await call(svc.api, 'GET', path(a, `/${bHookId}/deliveries?offset=-1`), { auth: a.auth });
      assert.equal(res.statusCode, 400);
    });

    it("answers 404 for another account's webhook", async () => {
      assert.equal(
        (await call(svc.api, 'GET', path(a, `/${bHookId}/deliveries`), { auth: a.auth })).statusCode,
        404,
      );
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'GET', path(a, `/${bHookId}/deliveries`))).statusCode, 401);
    });
  });

  describe('POST /v1/accounts/:accountId/webhooks/:webhookId/deliveries/:deliveryId/replay', () => {
    it('answers 404 HOOK-003 for an unknown delivery and for a non-id', async () => {
      const created = body(await create(a, 'http://127.0.0.1:9/replay')).data;
      const unknown = '01900000-0000-7000-8000-000000000000';
      let res = await call(svc.api, 'POST', path(a, `/${created.id}/deliveries/${unknown}/replay`), {
        auth: a.auth,
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'HOOK-003');
      res = await call(svc.api, 'POST', path(a, `/${created.id}/deliveries/xyz/replay`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
    });

    it("answers 404 for another account's webhook", async () => {
      const unknown = '01900000-0000-7000-8000-000000000000';
      const res = await call(svc.api, 'POST', path(a, `/${bHookId}/deliveries/${unknown}/replay`), {
        auth: a.auth,
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'HOOK-001');
    });

    it('rejects a call without a token with 401', async () => {
      const unknown = '01900000-0000-7000-8000-000000000000';
      assert.equal(
        (await call(svc.api, 'POST', path(a, `/${bHookId}/deliveries/${unknown}/replay`))).statusCode,
        401,
      );
    });
  });

  describe('OpenAPI', () => {
    it('documents a webhooks section with every event type', async () => {
      const doc = body(await call(svc.api, 'GET', '/openapi.json'));
      assert.equal(
        Object.keys(doc.webhooks).length,
        12,
        'the ten of the interface and list-opt-in / list-opt-out',
      );
      assert.ok(doc.webhooks['message-status'].post.requestBody);
    });
  });

  describe('Standard Webhooks signing', () => {
    it('reproduces the specification test vector', () => {
      const sig = sign(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      );
      assert.equal(sig, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    });

    it('produces signatures the standardwebhooks library verifies', () => {
      const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const ts = Math.floor(Date.now() / 1000);
      const payload = '{"type":"contact-created"}';
      const headers = {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(ts),
        'webhook-signature': sign(secret, 'evt_1', ts, payload),
      };
      assert.deepEqual(new StandardWebhook(secret).verify(payload, headers), { type: 'contact-created' });
      assert.throws(() => new StandardWebhook(secret).verify(`${payload} `, headers));
    });
  });
});
