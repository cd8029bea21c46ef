import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, inOneWindow, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('conventions every endpoint follows', () => {
  let svc: TestService;
  let a: TestAccount;
  before(async () => {
    // In-memory counters here: the IP-keyed token endpoint must not share a budget with other runs via Redis.
    svc = await startTestService({ rateLimitPerMinute: 5, redisUrl: undefined });
    a = await svc.newAccount();
  });
  after(() => svc.close());

  it('answers an unknown route with 404 in the error envelope', async () => {
    const res = await call(svc.api, 'GET', '/v1/nothing-here', { auth: a.auth });
    assert.equal(res.statusCode, 404);
    const b = body(res);
    assert.equal(b.success, false);
    assert.equal(b.error.code, 'HTTP-404');
    assert.equal(b.error.message, b.error.description);
  });

  it('answers a JSON body over 1 MiB with 413', async () => {
    const big = JSON.stringify({ grant_type: 'x'.repeat(1024 * 1024 + 10) });
    const res = await call(svc.api, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/json' },
      payload: big,
    });
    assert.equal(res.statusCode, 413);
    assert.equal(body(res).error.code, 'VAL-003');
  });

  it('treats an empty JSON body as no body (body-less PUT actions send the JSON content type)', async () => {
    const url = `/v1/accounts/${a.accountId}/conversations/01937c1e-0000-7000-8000-00000000abcd/close`;
    const res = await call(svc.api, 'PUT', url, {
      auth: a.auth,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    // The handler ran (an unknown conversation), rather than the body parser refusing the request.
    assert.equal(res.statusCode, 404);
    assert.equal(body(res).error.code, 'CONV-002');
  });

  it('refuses a prototype-poisoning JSON body with 400', async () => {
    const res = await call(svc.api, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":"client_credentials","__proto__":{"admin":true}}',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(body(res).error.code, 'VAL-002');
  });

  it('refuses a NUL character in a JSON body, a form body or the URL with 400', async () => {
    const json = await call(svc.api, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":"client_credentials","client_id":"a\\u0000b"}',
    });
    assert.equal(json.statusCode, 400);
    assert.equal(body(json).error.code, 'VAL-001');
    const form = await call(svc.api, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=a%00b',
    });
    assert.equal(form.statusCode, 400);
    const url = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}?x=%00`, { auth: a.auth });
    assert.equal(url.statusCode, 400);
    assert.equal(body(url).error.code, 'VAL-001');
  });

  it('answers a URL the router cannot decode with 400 in the error envelope', async () => {
    for (const app of [svc.api, svc.externals]) {
      const res = await call(app, 'GET', `/v1/accounts/${a.accountId}/contacts/%c0%af`, { auth: a.auth });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(body(res).success, false);
      assert.equal(body(res).error.code, 'VAL-001');
    }
  });

  it('serves /healthz and /readyz on both listeners', async () => {
    for (const app of [svc.api, svc.externals]) {
      for (const path of ['/healthz', '/readyz']) {
        const res = await call(app, 'GET', path);
        assert.equal(res.statusCode, 200, path);
        assert.equal(body(res).success, true);
      }
    }
  });

  it('publishes an OpenAPI 3.1 document and an interactive reference', async () => {
    const doc = await call(svc.api, 'GET', '/openapi.json');
    assert.equal(doc.statusCode, 200);
    const d = body(doc);
    assert.equal(d.openapi, '3.1.0');
    assert.ok(d.paths['/oauth2/token']);
    assert.ok(d.paths['/v1/accounts/{accountId}']);
    const docs = await call(svc.api, 'GET', '/docs/');
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger/i);
  });

  it('limits each client per minute: 429 with Retry-After and the IETF RateLimit fields', async () => {
    const b = await svc.newAccount();
    const url = `/v1/accounts/${b.accountId}`;
    await inOneWindow();
    const first = await call(svc.api, 'GET', url, { auth: b.auth });
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['ratelimit-policy'], '"default";q=5;w=60');
    assert.match(String(first.headers.ratelimit), /^"default";r=4;t=\d+$/);
    for (let i = 0; i < 4; i++)
      assert.equal((await call(svc.api, 'GET', url, { auth: b.auth })).statusCode, 200);
    const limited = await call(svc.api, 'GET', url, { auth: b.auth });
    assert.equal(limited.statusCode, 429);
    assert.equal(body(limited).error.code, 'RATE-001');
    const retry = Number(limited.headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 60);
    assert.match(String(limited.headers.ratelimit), new RegExp(`^"default";r=0;t=${retry}$`));
    // Another client has its own budget.
    assert.equal(
      (await call(svc.api, 'GET', `/v1/accounts/${a.accountId}`, { auth: a.auth })).statusCode,
      200,
    );
  });
});
