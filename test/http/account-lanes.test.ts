/**
 * An account's sends accepted at once by a listener (src/http/account-lanes.ts): at most the width
 * alone, one while another account sends, the rest in order, never another account's turn taken.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccountLanes, SENDING_RECENTLY_MS } from '../../src/http/account-lanes.ts';

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
  it('alone, runs two of an account’s sends at once, the third when one ends, in order', async () => {
    const lanes = new AccountLanes(2);
    const log: string[] = [];
    const [a1, a2, a3, a4] = ['a1', 'a2', 'a3', 'a4'].map((n) => gated(log, n));
    const running = [a1, a2, a3, a4].map((g) => lanes.run('A', g.fn));
    await turn();
    assert.deepEqual(
      [a1, a2, a3, a4].map((g) => g.started()),
      [true, true, false, false],
    );
    a2.release();
    await turn();
    await turn();
    assert.equal(a3.started(), true, 'the third takes the lane the second left');
    assert.equal(a4.started(), false);
    a1.release();
    await turn();
    await turn();
    assert.equal(a4.started(), true);
    a3.release();
    a4.release();
    assert.deepEqual(await Promise.all(running), ['a1', 'a2', 'a3', 'a4']);
    assert.deepEqual(
      log.filter((l) => l.startsWith('start')),
      ['start a1', 'start a2', 'start a3', 'start a4'],
    );
  });

  it('beside another account’s send, and for a second after it, one of an account’s sends at a time; the other never waits', async () => {
    let clock = 1_000_000;
    const lanes = new AccountLanes(2, () => clock);
    const log: string[] = [];
    const [a1, a2, a3, a4, a5, b1] = ['a1', 'a2', 'a3', 'a4', 'a5', 'b1'].map((n) => gated(log, n));
    const running = [lanes.run('A', a1.fn), lanes.run('A', a2.fn)];
    await turn();
    assert.deepEqual([a1.started(), a2.started()], [true, true], 'alone: two at once');
    running.push(lanes.run('B', b1.fn), lanes.run('A', a3.fn), lanes.run('A', a4.fn), lanes.run('A', a5.fn));
    await turn();
    assert.equal(b1.started(), true, 'B does not wait for A');
    a2.release();
    await turn();
    await turn();
    assert.equal(a3.started(), false, 'A still has one running while B sends: the third waits');
    b1.release();
    await turn();
    await turn();
    clock += SENDING_RECENTLY_MS - 1;
    a1.release();
    await turn();
    await turn();
    assert.deepEqual(
      [a3.started(), a4.started()],
      [true, false],
      'B sent less than a second ago: one at a time',
    );
    clock += 2;
    a3.release();
    await turn();
    await turn();
    assert.deepEqual([a4.started(), a5.started()], [true, true], 'B quiet for a second: two at once again');
    a4.release();
    a5.release();
    assert.deepEqual(await Promise.all(running), ['a1', 'a2', 'b1', 'a3', 'a4', 'a5']);
    assert.deepEqual(
      log.filter((l) => l.startsWith('start')),
      ['start a1', 'start a2', 'start b1', 'start a3', 'start a4', 'start a5'],
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
