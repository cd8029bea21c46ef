import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('HTTP answers say what happened', () => {
  let svc: TestService;
  let a: TestAccount;
  const base = () => `/v1/accounts/${a.accountId}`;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 10 });
  });
  after(() => svc.close());

  it('answers a known path with another method with 405 HTTP-405 and Allow listing its methods', async () => {
    const cases: [string, string, string[]][] = [
      ['DELETE', `${base()}/messages`, ['GET', 'POST']],
      ['POST', `${base()}/campaigns/01937c1e-0000-7000-8000-00000000abcd`, ['DELETE', 'GET', 'PUT']],
      ['GET', '/oauth2/token', ['POST']],
      ['PATCH', `${base()}/webhooks`, ['GET', 'POST']],
    ];
    for (const [method, url, expected] of cases) {
      const res = await call(svc.api, method as 'GET', url, { auth: a.auth });
      assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
      assert.equal(body(res).error.code, 'HTTP-405');
      const allow = String(res.headers.allow).split(', ');
      for (const m of expected) assert.ok(allow.includes(m), `${method} ${url}: Allow ${allow} lacks ${m}`);
      assert.ok(!allow.includes(method));
    }
  });

  it('still answers an unknown path with 404 HTTP-404', async () => {
    const res = await call(svc.api, 'DELETE', `${base()}/nothing-here`, { auth: a.auth });
    assert.equal(res.statusCode, 404);
    assert.equal(body(res).error.code, 'HTTP-404');
    assert.equal(res.headers.allow, undefined);
  });

  it('answers an unsupported content type on a JSON route with 415 VAL-004', async () => {
    for (const type of ['text/plain', 'text/csv', 'application/x-www-form-urlencoded']) {
      const res = await call(svc.api, 'POST', `${base()}/messages`, {
        auth: a.auth,
        headers: { 'content-type': type },
        payload: 'template=hi',
      });
      assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-004');
      assert.match(body(res).error.message, /application\/json/);
    }
  });

  it('keeps the content types a route takes: CSV uploads and form-encoded tokens', async () => {
    const csv = await call(svc.api, 'POST', `${base()}/contacts`, {
      auth: a.auth,
      headers: { 'content-type': 'text/csv' },
      payload: 'mobile\n+12015550111\n',
    });
    assert.equal(csv.statusCode, 201, csv.body);
    const token = await call(svc.api, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=x&client_secret=y',
    });
    assert.equal(token.statusCode, 401, token.body);
  });

  it('names the field and lists the allowed values once for an enum violation', async () => {
    const res = await call(svc.api, 'POST', `${base()}/webhooks`, {
      auth: a.auth,
      json: { url: 'https://example.com/hook', eventTypes: ['message-sent', 'message-deleted'] },
    });
    assert.equal(res.statusCode, 400, res.body);
    const { code, message } = body(res).error;
    assert.equal(code, 'VAL-001');
    assert.match(
      message,
      /^body\.eventTypes\[1\] must be one of: message-received, message-status, message-sent,/,
    );
    assert.match(message, /list-opt-out\.$/);
    assert.equal(message.match(/must be/g).length, 1);
  });

  it('names a missing required field and a wrong query value', async () => {
    const missing = await call(svc.api, 'POST', `${base()}/webhooks`, {
      auth: a.auth,
      json: { eventTypes: ['contact-created'] },
    });
    assert.equal(missing.statusCode, 400);
    assert.match(body(missing).error.message, /body\.url is required/);
    const limit = await call(svc.api, 'GET', `${base()}/messages?limit=1000`, { auth: a.auth });
    assert.equal(limit.statusCode, 400);
    assert.match(body(limit).error.message, /querystring\.limit must be <= 100/);
  });
});
