import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byCloseness } from '../../src/domain/send/dispatch/settle-uncertain.ts';
import type { LookupMatch } from '../../src/providers/types.ts';

describe('the matches of a lookup of unknown fate, in the order they are taken', () => {
  const since = new Date('2025-03-01T12:00:10Z');
  const at = (iso: string, sid: string): LookupMatch => ({
    providerMessageId: sid,
    status: 'sent',
    at: new Date(iso),
  });

  it('takes the carrier message closest in time to the attempt first, whichever side of it', () => {
    // The provider answers oldest first: an identical text a minute before, one 1 s before
    // (the carrier's clock is behind), one 20 s after.
    const found = [
      at('2025-03-01T11:59:10Z', 'SM-minute-before'),
      at('2025-03-01T12:00:09Z', 'SM-second-before'),
      at('2025-03-01T12:00:30Z', 'SM-after'),
    ];
    assert.deepEqual(
      byCloseness(found, since).map((m) => m.providerMessageId),
      ['SM-second-before', 'SM-after', 'SM-minute-before'],
    );
  });

  it('keeps the provider order among equals and puts matches without a time last', () => {
    const found: LookupMatch[] = [
      { providerMessageId: 'SM-untimed', status: 'sent' },
      at('2025-03-01T12:00:12Z', 'SM-a'),
      at('2025-03-01T12:00:08Z', 'SM-b'),
    ];
    assert.deepEqual(
      byCloseness(found, since).map((m) => m.providerMessageId),
      ['SM-a', 'SM-b', 'SM-untimed'],
    );
  });
});
