/**
 * A worker round that fails because the process is out of file descriptors is logged once for the
 * whole process (not once per task or round) and backs off; other failures are logged as before.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppContext } from '../../src/context.ts';
import { Metrics } from '../../src/metrics/metrics.ts';
import { startLoop } from '../../src/workers/loop.ts';

const emfile = () =>
  Object.assign(new Error('connect EMFILE 127.0.0.1:5432 - Local (undefined:undefined)'), { code: 'EMFILE' });

describe('worker loops out of file descriptors', () => {
  it('log one line for all the loops that hit EMFILE, and each other failure as it comes', async () => {
    const lines: string[] = [];
    const ran: Promise<void>[] = [];
    const loops = ['dispatch', 'webhooks', 'workflows', 'other'].map((name) => {
      let first: () => void;
      ran.push(new Promise<void>((r) => (first = r)));
      return startLoop(
        { metrics: new Metrics() } as AppContext,
        {
          name,
          run: async () => {
            // Once this round's failure has been handled (the loop's catch runs in the microtasks before it).
            setTimeout(first, 0);
            throw name === 'other' ? new Error('something else') : emfile();
          },
        } as never,
        (m) => lines.push(m),
      );
    });
    await Promise.all(ran);
    await Promise.all(loops.map((l) => l.stop()));
    assert.equal(lines.filter((l) => /out of file descriptors/.test(l)).length, 1, lines.join('\n'));
    assert.deepEqual(
      lines.filter((l) => !/out of file descriptors/.test(l)),
      ['worker other: something else'],
    );
  });
});
