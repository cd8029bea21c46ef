import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('accounts', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('GET /v1/accounts/:accountId', () => {
    it('answers the account in the envelope', async () => {
      const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}`, { auth: a.auth });
      assert.equal(res.statusCode, 200);
      const { success, data } = body(res);
      assert.equal(success, true);
      assert.equal(data.id, a.accountId);
      assert.equal(data.status, 'trial');
      assert.equal(data.trial, true);
      assert.equal(data.timezone, 'UTC');
      assert.match(data.created.at, /^\d{4}-\d\d-\d\dT/);
    });

    it('rejects a call without a token with 401 and WWW-Authenticate', async () => {
      const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}`);
      assert.equal(res.statusCode, 401);
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      assert.equal(body(res).error.code, 'AUTH-001');
    });

    it("answers 403 for another account's id", async () => {
      const res = await call(svc.api, 'GET', `/v1/accounts/${b.accountId}`, { auth: a.auth });
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-003');
    });
  });

  describe('GET /v1/accounts/:accountId/balance', () => {
    it('answers the trial credit a new account starts with', async () => {
      const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data, { balance: 20, currency: 'USD' });
    });

    it('rejects a bad token with 401 invalid_token', async () => {
      const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, {
        auth: { authorization: `Bearer ${a.token.slice(0, -4)}AAAA` },
      });
      assert.equal(res.statusCode, 401);
      assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
    });

    it("answers 403 for another account's balance", async () => {
      const res = await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/balance`, { auth: a.auth });
      assert.equal(res.statusCode, 403);
    });
  });
});
