/** The estimated finish of a send from its numbers' rates and daily caps (src/messaging/pacing.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dailyCapacity, estimateFinish } from '../../src/messaging/pacing.ts';

const NOON = Date.parse('2026-11-28T12:00:00Z');
const MIDNIGHT = Date.parse('2026-11-29T00:00:00Z');
const DAY = 86_400_000;

describe('dailyCapacity', () => {
  it('is unbounded while one number has no cap and is in no capped group', () => {
    const c = dailyCapacity(
      [
        { id: 'a', rate: 1, cap: 10, usedToday: 0 },
        { id: 'b', rate: 1, cap: null, usedToday: 0 },
      ],
      [],
    );
    assert.deepEqual(c, { perDay: null, leftToday: null });
  });

  it('adds numbers’ caps, and takes a group’s cap for its numbers together where it is less', () => {
    const numbers = [
      { id: 'a', rate: 1, cap: 10, usedToday: 4 },
      { id: 'b', rate: 1, cap: null, usedToday: 0 },
      { id: 'c', rate: 1, cap: 5, usedToday: 5 },
    ];
    // a and b in a group of 8 (6 used today); c alone.
    const c = dailyCapacity(numbers, [{ cap: 8, usedToday: 6, numberIds: ['a', 'b'] }]);
    assert.deepEqual(c, { perDay: 8 + 5, leftToday: 2 + 0 });
    // A group larger than its numbers' own caps: theirs.
    const d = dailyCapacity(
      [{ id: 'a', rate: 1, cap: 10, usedToday: 9 }],
      [{ cap: 50, usedToday: 9, numberIds: ['a'] }],
    );
    assert.deepEqual(d, { perDay: 10, leftToday: 1 });
  });
});

describe('estimateFinish', () => {
  const base = { zone: 'UTC', now: NOON, start: NOON };

  it('without a cap: the messages at the rate from the start', () => {
    assert.equal(
      estimateFinish({ ...base, messages: 300, rate: 10, capacity: { perDay: null, leftToday: null } }),
      NOON + 30_000,
    );
    assert.equal(
      estimateFinish({ ...base, messages: 0, rate: 10, capacity: { perDay: null, leftToday: null } }),
      NOON,
    );
  });

  it('within what is left of today: today', () => {
    assert.equal(
      estimateFinish({ ...base, messages: 50, rate: 10, capacity: { perDay: 100, leftToday: 60 } }),
      NOON + 5_000,
    );
  });

  it('past it: a day’s cap from each next day’s start (the account’s midnight)', () => {
    // 60 today, then 100 a day: 240 more is the third day's 40.
    assert.equal(
      estimateFinish({ ...base, messages: 300, rate: 10, capacity: { perDay: 100, leftToday: 60 } }),
      MIDNIGHT + 2 * DAY + 4_000,
    );
    // Nothing left today: the 2 go at tomorrow's start.
    assert.equal(
      estimateFinish({ ...base, messages: 2, rate: 1, capacity: { perDay: 3, leftToday: 0 } }),
      MIDNIGHT + 2_000,
    );
  });

  it('counts days in the account’s zone, and a later start’s day in full', () => {
    // Noon UTC is 21:00 in Tokyo: its next day starts at 15:00 UTC.
    const tokyo = { zone: 'Asia/Tokyo', now: NOON, start: NOON };
    assert.equal(
      estimateFinish({ ...tokyo, messages: 5, rate: 1, capacity: { perDay: 3, leftToday: 0 } }),
      Date.parse('2026-11-28T15:00:00Z') + DAY + 2_000,
    );
    // A send held until tomorrow's start: that day's whole cap.
    assert.equal(
      estimateFinish({
        ...base,
        start: MIDNIGHT,
        messages: 3,
        rate: 1,
        capacity: { perDay: 3, leftToday: 0 },
      }),
      MIDNIGHT + 3_000,
    );
  });

  it('a slow rate fills fewer than the cap in a day', () => {
    // 1 a second cannot send 100,000 in the 12 hours left today (43,200), nor in a day (86,400).
    const finish = estimateFinish({
      ...base,
      messages: 200_000,
      rate: 1,
      capacity: { perDay: 100_000, leftToday: 100_000 },
    });
    // 43,200 today, 86,400 tomorrow, the remaining 70,400 the day after.
    assert.equal(finish, MIDNIGHT + DAY + 70_400_000);
  });
});
