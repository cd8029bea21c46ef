import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { redisKeyPrefix } from '../../src/config/read.ts';
import { type RateLimiter, redisRateLimiter } from '../../src/http/rate-limiter.ts';
import { body, call, inOneWindow, startTestService, type TestService } from '../helpers.ts';

const REDIS_URL = process.env.REDIS_URL;

describe('rate limits shared through Redis (REDIS_URL)', {
  skip: REDIS_URL ? false : 'REDIS_URL is not set',
}, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 3, redisUrl: REDIS_URL });
  });
  after(() => svc.close());

  /** Two limiters of `limit` a minute on REDIS_URL (key prefixes as given), closed after `use`. */
  const withTwoLimiters = async (
    limit: number,
    prefixes: [string, string],
    use: (one: RateLimiter, two: RateLimiter) => Promise<void>,
  ) => {
    const one = redisRateLimiter(limit, REDIS_URL!, prefixes[0]);
    const two = redisRateLimiter(limit, REDIS_URL!, prefixes[1]);
    try {
      await use(one, two);
    } finally {
      await one.close();
      await two.close();
    }
  };

  it('counts one budget across limiter instances, as separate processes would', () =>
    withTwoLimiters(3, [redisKeyPrefix({}), redisKeyPrefix({})], async (one, two) => {
      const key = `test:${randomUUID()}`;
      assert.equal((await one.hit(key)).remaining, 2);
      assert.equal((await two.hit(key)).remaining, 1);
      assert.equal((await one.hit(key)).allowed, true);
      const over = await two.hit(key);
      assert.equal(over.allowed, false);
      assert.equal(over.remaining, 0);
    }));

  it('counts deployments with different key prefixes (REDIS_KEY_PREFIX) apart', () =>
    withTwoLimiters(2, [`prod-${randomUUID()}`, `staging-${randomUUID()}`], async (prod, staging) => {
      const key = `ip:${randomUUID()}`;
      assert.equal((await prod.hit(key)).allowed, true);
      assert.equal((await prod.hit(key)).allowed, true);
      assert.equal((await prod.hit(key)).allowed, false);
      // The other deployment's budget for the same client is untouched.
      const first = await staging.hit(key);
      assert.equal(first.allowed, true);
      assert.equal(first.remaining, 1);
    }));

  it('answers 429 through the API once the shared budget is spent', async () => {
    const a = await svc.newAccount();
    const url = `/v1/accounts/${a.accountId}`;
    await inOneWindow();
    for (let i = 0; i < 3; i++)
      assert.equal((await call(svc.api, 'GET', url, { auth: a.auth })).statusCode, 200);
    const res = await call(svc.api, 'GET', url, { auth: a.auth });
    assert.equal(res.statusCode, 429);
    assert.equal(body(res).error.code, 'RATE-001');
    assert.ok(Number(res.headers['retry-after']) >= 1);
  });
});
