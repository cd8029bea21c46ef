/**
 * An account's sends accepted at once by a listener (src/http/account-lanes.ts): at most the width,
 * the rest in order, never another account's turn taken.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccountLanes } from '../../src/http/account-lanes.ts';

/** A send that runs until `release()` is called; `started` tells whether it began. */
function gated(log: string[], name: string) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let started = false;
  return {
    fn: async () => {
      started = true;
      log.push(`start ${name}`);
      await gate;
      log.push(`end ${name}`);
      return name;
    },
    release: () => release(),
    started: () => started,
  };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('account lanes', () => {
  it('runs two of an account’s sends at once, the third when one ends, in order; another account never waits', async () => {
    const lanes = new AccountLanes(2);
    const log: string[] = [];
    const [a1, a2, a3, a4, b1] = ['a1', 'a2', 'a3', 'a4', 'b1'].map((n) => gated(log, n));
    const running = [
      lanes.run('A', a1.fn),
      lanes.run('A', a2.fn),
      lanes.run('A', a3.fn),
      lanes.run('A', a4.fn),
      lanes.run('B', b1.fn),
    ];
    await turn();
    assert.deepEqual(
      [a1, a2, a3, a4, b1].map((g) => g.started()),
      [true, true, false, false, true],
    );
    b1.release();
    a2.release();
    await turn();
    await turn();
    assert.equal(a3.started(), true, 'the third takes the lane the second left');
    assert.equal(a4.started(), false);
    a1.release();
    a3.release();
    await turn();
    await turn();
    assert.equal(a4.started(), true);
    a4.release();
    assert.deepEqual(await Promise.all(running), ['a1', 'a2', 'a3', 'a4', 'b1']);
    assert.deepEqual(
      log.filter((l) => l.startsWith('start')),
      ['start a1', 'start a2', 'start b1', 'start a3', 'start a4'],
    );
  });

  it('hands the lane on when a send fails, and answers the failure to its caller', async () => {
    const lanes = new AccountLanes(1);
    const failing = lanes.run('A', async () => {
      await turn();
      throw new Error('refused');
    });
    const next = lanes.run('A', async () => 'sent');
    await assert.rejects(failing, /refused/);
    assert.equal(await next, 'sent');
    // Nothing left behind: a new send of the account starts at once.
    let began = false;
    const again = lanes.run('A', async () => {
      began = true;
    });
    assert.equal(began, true);
    await again;
  });
});
