import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailureBudget, MAX_KEYS } from '../../src/domain/auth/failure-budget.ts';

describe('FailureBudget', () => {
  it('keeps an address spent however many made-up keys ride along with it (no reset by filling the map)', () => {
    const budget = new FailureBudget(3);
    for (let i = 0; i < 3; i++) assert.equal(budget.take(['addr:1', `client:${i}`]).allowed, true);
    // A spray of made-up client ids from the spent address: each refused, none stored.
    for (let i = 0; i <= MAX_KEYS; i++) assert.equal(budget.take(['addr:1', `made-up:${i}`]).allowed, false);
    assert.ok(budget.size <= 4, `holds ${budget.size} keys`);
    assert.equal(budget.take(['addr:1', 'client:x']).allowed, false, 'the address is still spent');
  });

  it('stays within MAX_KEYS under a spray of addresses, forgetting the least recently failed first', () => {
    const budget = new FailureBudget(2);
    budget.take(['addr:victim-of-nothing']);
    budget.take(['addr:busy']);
    budget.take(['addr:busy']);
    for (let i = 0; i < MAX_KEYS + 10; i++) {
      budget.take([`addr:spray-${i}`]);
      // The busy address keeps failing: it is never the least recent key.
      if (i % 10_000 === 0) budget.take(['addr:busy']);
    }
    assert.ok(budget.size <= MAX_KEYS, `holds ${budget.size} keys`);
    assert.equal(budget.take(['addr:busy']).allowed, false, 'the address failing all along is still spent');
  });

  it('gives a unit back on success, and forgets a key with nothing counted', () => {
    const budget = new FailureBudget(1);
    assert.equal(budget.take(['k']).allowed, true);
    budget.giveBack(['k']);
    assert.equal(budget.size, 0);
    assert.equal(budget.take(['k']).allowed, true);
    assert.equal(budget.take(['k']).allowed, false);
  });
});
