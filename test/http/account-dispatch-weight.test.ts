/**
 * Issue 25: an account's dispatch weight (its share of the dispatcher against other accounts') is
 * shown on the Account and set by the operator (`sparrow accounts weight`), never by the tenant.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const run = promisify(execFile);
const BIN = path.resolve('bin/sparrow.js');

describe('dispatchWeight', () => {
  let svc: TestService;
  let a: TestAccount;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
  });
  after(() => svc.close());

  const sparrow = (...args: string[]) =>
    run(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: svc.config.databaseUrl } });
  const weight = async () =>
    body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}`, { auth: a.auth })).data.dispatchWeight;

  it('is 1 by default, and the tenant cannot raise its own (the field is not a setting of PUT)', async () => {
    assert.equal(await weight(), 1);
    const res = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}`, {
      auth: a.auth,
      json: { dispatchWeight: 100 },
    });
    // Unknown fields of the body are dropped by the validator (the API's rule for every body).
    assert.ok(res.statusCode === 200 || res.statusCode === 400, res.body);
    assert.equal(await weight(), 1);
  });

  it('is set by the operator: sparrow accounts weight ACCOUNT_ID N (1..100)', async () => {
    const done = JSON.parse((await sparrow('accounts', 'weight', a.accountId, '4')).stdout);
    assert.deepEqual(done, { accountId: a.accountId, dispatchWeight: 4 });
    assert.equal(await weight(), 4);
    for (const bad of ['0', '101', '2.5', 'x']) {
      await assert.rejects(
        sparrow('accounts', 'weight', a.accountId, bad),
        (err: { code: number; stderr: string }) => {
          assert.equal(err.code, 2);
          assert.match(err.stderr, /1 to 100/);
          return true;
        },
      );
    }
    assert.equal(await weight(), 4);
  });
});
