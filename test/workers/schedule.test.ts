/**
 * The worker schedule (src/workers/index.ts) and its drain helper (loop.ts): a round that did a
 * full batch goes again at once, any other waits `every`; a task without a batch always waits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppContext } from '../../src/context.ts';
import { TASKS, task } from '../../src/workers/index.ts';
import { drain, startLoop } from '../../src/workers/loop.ts';

const ctx = { config: { sweep: 7 } } as unknown as AppContext;
const signal = new AbortController().signal;

describe('drain', () => {
  it('answers 0 after a full batch and `every` after a short one', async () => {
    const answers = [3, 2, 0, 5];
    const batches: number[] = [];
    const t = drain({
      name: 'q',
      every: 1000,
      batch: 3,
      run: async (_ctx, batch) => {
        batches.push(batch);
        return answers.shift();
      },
    });
    assert.equal(t.name, 'q');
    assert.deepEqual(
      [
        await t.run(ctx, signal),
        await t.run(ctx, signal),
        await t.run(ctx, signal),
        await t.run(ctx, signal),
      ],
      [0, 1000, 1000, 0],
    );
    assert.deepEqual(batches, [3, 3, 3, 3]);
  });

  it('reads `every` from the settings each round, and a task without a batch always waits', async () => {
    const t = drain({
      name: 'periodic',
      every: (c) => (c.config as unknown as { sweep: number }).sweep * 1000,
      run: async (_ctx, batch) => {
        assert.equal(batch, Number.POSITIVE_INFINITY);
        return 1_000_000;
      },
    });
    assert.equal(await t.run(ctx, signal), 7000);
    const nothing = drain({ name: 'void', every: 60_000, batch: 10, run: async () => undefined });
    assert.equal(await nothing.run(ctx, signal), 60_000);
  });

  it('keeps the wake-up and the stop hook', () => {
    const subscribe = () => () => {};
    const stop = async () => {};
    const t = drain({ name: 'hooks', every: 1, run: async () => 0, subscribe, stop });
    assert.equal(t.subscribe, subscribe);
    assert.equal(t.stop, stop);
  });

  it('in a loop, drains a queue in full batches at once and then waits', async () => {
    let queue = 5;
    const rounds: number[] = [];
    let drained!: () => void;
    const empty = new Promise<void>((r) => (drained = r));
    const loop = startLoop(
      ctx,
      drain({
        name: 'queue',
        // Far longer than any test: a fourth round could only come from going again at once.
        every: 3_600_000,
        batch: 2,
        run: async (_ctx, batch) => {
          const n = Math.min(batch, queue);
          queue -= n;
          rounds.push(n);
          if (n < batch) drained();
          return n;
        },
      }),
      () => {},
    );
    await empty;
    await loop.stop();
    assert.deepEqual(rounds, [2, 2, 1]);
  });
});

describe('the schedule', () => {
  it('names each task once, and runs every task the worker ran before the table', () => {
    const names = TASKS.map((t) => t.name);
    assert.equal(new Set(names).size, names.length, names.join(', '));
    for (const name of [
      'dispatch',
      'idempotency-purge',
      'webhook-fanout',
      'webhook-delivery',
      'campaign-scheduler',
      'auto-topup',
      'workflow-enroll',
      'workflow-runner',
      'meeting-reminders',
      'scheduled-sends',
      'sharefile-purge',
      'bulk-contacts',
      'contact-imports',
      'smpp-outbox-expiry',
      'message-expiry',
      'partition-maintenance',
    ])
      assert.equal(task(name).name, name);
    assert.throws(() => task('no-such-task'), /no worker task named no-such-task/);
  });
});
