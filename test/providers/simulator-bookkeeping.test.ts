import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  AttemptBits,
  DueQueue,
  type Pending,
  uuidRoundTrip,
} from '../../src/providers/simulator/bookkeeping.ts';

describe('simulator bookkeeping', () => {
  it('stores lower-case UUIDs compactly and gives them back identical', () => {
    const ids = [
      ...Array.from({ length: 200 }, () => randomUUID()),
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '019a8b2c-7f00-7abc-8def-0123456789ab',
    ];
    for (const id of ids) assert.equal(uuidRoundTrip(id), id);
  });

  it('refuses anything that is not a lower-case UUID', () => {
    for (const id of [
      '019A8B2C-7F00-7ABC-8DEF-0123456789AB',
      '019a8b2c-7f00-7abc-8def-0123456789a',
      '019a8b2c-7f00-7abc-8def-0123456789abc',
      '019a8b2c7f00-7abc-8def-0123456789ab-',
      '019a8b2c-7f00-7abc-8deg-0123456789ab',
      'sim-in-1',
      '',
    ]) {
      assert.equal(uuidRoundTrip(id), undefined, id);
    }
  });

  it('hands receipts back in due order with their ids, UUID or not, across growth', () => {
    const q = new DueQueue();
    const pushed: Pending[] = [];
    for (let i = 0; i < 3000; i++) {
      const p: Pending = {
        due: 1000 + i,
        accountId: i % 3 === 0 ? 'acct-a' : 'acct-b',
        id: i % 7 === 0 ? `custom-${i}` : randomUUID(),
        attempt: (i % 5) + 1,
        blocked: i % 11 === 0,
        tries: i % 4,
      };
      pushed.push(p);
      q.push(p);
    }
    const out: Pending[] = [];
    q.takeDue(1999, out, 10_000);
    assert.deepEqual(out, pushed.slice(0, 1000));
    q.takeDue(Number.POSITIVE_INFINITY, out, 10_000);
    assert.deepEqual(out, pushed);
    assert.equal(q.size, 0);
  });

  it('remembers attempt bits per id', () => {
    const bits = new AttemptBits();
    const ids = Array.from({ length: 5000 }, () => randomUUID());
    for (const [i, id] of ids.entries()) bits.set(id, 1 << (i % 31));
    bits.set('not-a-uuid', 6);
    for (const [i, id] of ids.entries()) assert.equal(bits.get(id), 1 << (i % 31));
    assert.equal(bits.get('not-a-uuid'), 6);
    assert.equal(bits.get(randomUUID()), 0);
  });
});
