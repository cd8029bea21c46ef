import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { redisRateLimiter } from '../../src/http/rate-limiter.ts';
import { body, call, startTestService, type TestService } from '../helpers.ts';

const REDIS_URL = process.env.REDIS_URL;

describe('rate limits shared through Redis (REDIS_URL)', {
  skip: REDIS_URL ? false : 'REDIS_URL is not set',
}, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 3, redisUrl: REDIS_URL });
  });
  after(() => svc.close());

  it('counts one budget across limiter instances, as separate processes would', async () => {
    const one = redisRateLimiter(3, REDIS_URL!);
    const two = redisRateLimiter(3, REDIS_URL!);
    const key = `test:${randomUUID()}`;
    try {
      assert.equal((await one.hit(key)).remaining, 2);
      assert.equal((await two.hit(key)).remaining, 1);
      assert.equal((await one.hit(key)).allowed, true);
      const over = await two.hit(key);
      assert.equal(over.allowed, false);
      assert.equal(over.remaining, 0);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('counts deployments with different key prefixes (REDIS_KEY_PREFIX) apart', async () => {
    const key = `ip:${randomUUID()}`;
    const prod = redisRateLimiter(2, REDIS_URL!, `prod-${randomUUID()}`);
    const staging = redisRateLimiter(2, REDIS_URL!, `staging-${randomUUID()}`);
    try {
      assert.equal((await prod.hit(key)).allowed, true);
      assert.equal((await prod.hit(key)).allowed, true);
      assert.equal((await prod.hit(key)).allowed, false);
      // The other deployment's budget for the same client is untouched.
      const first = await staging.hit(key);
      assert.equal(first.allowed, true);
      assert.equal(first.remaining, 1);
    } finally {
      await prod.close();
      await staging.close();
    }
  });

  it('answers 429 through the API once the shared budget is spent', async () => {
    const a = await svc.newAccount();
    const url = `/v1/accounts/${a.accountId}`;
    for (let i = 0; i < 3; i++)
      assert.equal((await call(svc.api, 'GET', url, { auth: a.auth })).statusCode, 200);
    const res = await call(svc.api, 'GET', url, { auth: a.auth });
    assert.equal(res.statusCode, 429);
    assert.equal(body(res).error.code, 'RATE-001');
    assert.ok(Number(res.headers['retry-after']) >= 1);
  });
});
