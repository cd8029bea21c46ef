import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSmppTime, relativeTime, validitySeconds } from '../../src/providers/smpp/time.ts';

const NOW = new Date('2026-11-24T09:00:00.000Z');

describe('SMPP 3.4 time formats (§7.1.1)', () => {
  it('writes seconds as a relative time: days, hours, minutes, seconds, then 000R', () => {
    assert.equal(relativeTime(1), '000000000001000R');
    assert.equal(relativeTime(5400), '000000013000000R');
    assert.equal(relativeTime(86_400 + 3661), '000001010101000R');
    assert.equal(relativeTime(604_800), '000007000000000R');
    assert.equal(relativeTime(36_000), '000000100000000R');
    assert.throws(() => relativeTime(100 * 86_400));
  });

  it('reads relative times back to the instant they name', () => {
    for (const s of [1, 59, 5400, 90_061, 604_800])
      assert.equal(parseSmppTime(relativeTime(s), NOW)?.getTime(), NOW.getTime() + s * 1000, String(s));
    // Years and months are calendar steps.
    assert.equal(parseSmppTime('000100000000000R', NOW)?.toISOString(), '2026-12-24T09:00:00.000Z');
  });

  it('reads absolute times with their distance from UTC in quarter hours', () => {
    assert.equal(parseSmppTime('261124103000004+', NOW)?.toISOString(), '2026-11-24T09:30:00.000Z');
    assert.equal(parseSmppTime('261124103000000+', NOW)?.toISOString(), '2026-11-24T10:30:00.000Z');
    assert.equal(parseSmppTime('261124033000520-', NOW)?.toISOString(), '2026-11-24T08:30:00.500Z');
  });

  it('refuses what is not a time of either format', () => {
    for (const bad of [
      '',
      'garbage',
      '26112410300000+',
      '2611241030000040+',
      '261324103000004+',
      '261131103000004+',
      '261124253000004+',
      '261124103000049+',
      '000000013000100R',
      '26112410300000 4+',
      '261124103000004X',
    ])
      assert.equal(parseSmppTime(bad, NOW), undefined, bad);
  });

  it('turns a PDU field into seconds: none when empty, null when invalid or past', () => {
    assert.equal(validitySeconds('', NOW), undefined);
    assert.equal(validitySeconds(undefined, NOW), undefined);
    assert.equal(validitySeconds('000000013000000R', NOW), 5400);
    assert.equal(validitySeconds('261124100000000+', NOW), 3600);
    assert.equal(validitySeconds(new Date(NOW.getTime() + 61_500), NOW), 62);
    assert.equal(validitySeconds('261124080000000+', NOW), null);
    assert.equal(validitySeconds('nonsense', NOW), null);
    assert.equal(validitySeconds(new Date(Number.NaN), NOW), null);
    assert.equal(validitySeconds(12, NOW), null);
  });
});
