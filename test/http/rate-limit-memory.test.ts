/**
 * The in-process rate limiter's memory is bounded: past its key budget, new keys (a client rotating
 * addresses) share one window per limit and are limited together; keys already counted keep theirs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryRateLimiter } from '../../src/http/rate-limiter.ts';

describe('memory rate limiter key budget', () => {
  it('counts keys past the budget in one shared window, and keeps the counted keys their own', async () => {
    const limiter = memoryRateLimiter(3, 10);
    for (let i = 0; i < 10; i++) assert.ok((await limiter.hit(`ip:${i}`)).allowed);
    // Twenty made-up addresses: together they get the one limit of 3.
    const rotated = [];
    for (let i = 0; i < 20; i++) rotated.push((await limiter.hit(`rotated:${i}`)).allowed);
    assert.deepEqual(rotated.map((a) => (a ? 1 : 0)).join(''), '11100000000000000000');
    // A key counted before the budget ran out still has its own window (1 of 3 used).
    assert.equal((await limiter.hit('ip:0')).remaining, 1);
  });
});
