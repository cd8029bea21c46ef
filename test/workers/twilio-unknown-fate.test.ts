import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dispatch } from '../../src/workers/dispatch.ts';
import { assertEachSentOnce, send, settled, withCarrier } from '../support/twilio-carrier.ts';

describe('an attempt of unknown fate at a Twilio-compatible carrier is looked up before any retry', () => {
  const N = 24;
  /** The first submission to each of the first SLOW recipients is answered too late to be heard. */
  const SLOW = 6;
  const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_100_000 + i)}`);
  const slow = new Set(mobiles.slice(0, SLOW));
  const t = withCarrier({ submission: (to, k) => (slow.has(to) && k === 0 ? 'late' : 'ok') });

  it('texts every recipient once: the messages whose answer never came are found at the carrier, not resent', async () => {
    t.svc.startWorkers([dispatch]);
    await send(t.svc, t.acc, mobiles, 'Your code is 4411');
    const rows = await settled(t.svc, t.acc, N);

    // At the carrier: each recipient exactly once, though SLOW answers were never heard; each
    // message carries the id the carrier gave its one submission, the late ones included.
    assertEachSentOnce(t.carrier, rows, mobiles);
  });
});

describe('a lookup of unknown fate that fails is made again, with backoff, before anything is resent', () => {
  const N = 8;
  const SLOW = 4;
  const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_200_000 + i)}`);
  const slow = new Set(mobiles.slice(0, SLOW));
  // A slow recipient's first submission is never answered in time, and so are its first two
  // lookups: the first answers 500, the second hangs past the provider's timeout.
  const t = withCarrier({
    submission: (to, k) => (slow.has(to) && k === 0 ? 'late' : 'ok'),
    lookup: (_to, k) => (k === 0 ? 'fail' : k === 1 ? 'hang' : 'ok'),
  });

  it('submits every message exactly once though the carrier could not be asked at first', async () => {
    t.svc.startWorkers([dispatch]);
    await send(t.svc, t.acc, mobiles, 'Your code is 5522');
    const rows = await settled(t.svc, t.acc, N);

    assertEachSentOnce(t.carrier, rows, mobiles);
    // The case happened: every slow recipient's lookups failed twice before one was answered.
    for (const to of slow) assert.ok((t.carrier.lookups.get(to) ?? 0) >= 3, to);
  });
});

describe('two identical messages of unknown fate never take the same carrier message', () => {
  const mobile = '+12025300000';
  // Both submissions go unanswered; the carrier holds only the first (the second never arrived).
  // Their lookups are answered together, so both find the one message at the same moment.
  const t = withCarrier({
    submission: (_to, k) => (k === 0 ? 'late' : k === 1 ? 'lost' : 'ok'),
    together: 2,
  });

  it('gives the carrier message to one of them and resends the other', async () => {
    // Both queued before the dispatcher runs: they are handed over together.
    await send(t.svc, t.acc, [mobile], 'Same words');
    await send(t.svc, t.acc, [mobile], 'Same words');
    t.svc.startWorkers([dispatch]);
    const rows = await settled(t.svc, t.acc, 2);

    const held = t.carrier.created.filter((c) => c.to === mobile);
    assert.equal(held.length, 2, 'the carrier ends with two texts: the one it held and one resend');
    for (const r of rows) assert.equal(r.status, 'sent', r.id);
    const first = held[0].sid;
    assert.equal(rows.filter((r) => r.provider_message_id === first).length, 1, 'one message took it');
    assert.deepEqual(
      rows.map((r) => r.provider_message_id).sort(),
      held.map((c) => c.sid).sort(),
      'each message has its own carrier id',
    );
  });
});
