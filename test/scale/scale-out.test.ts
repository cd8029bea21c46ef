/**
 * Scale-out, counted at the carrier: 2 `sparrow api` and 3 `sparrow worker` processes on the
 * PostgreSQL of DATABASE_URL and the Redis of REDIS_URL (CI's second pass sets both; without them
 * this file reports itself skipped), a bulk send plus single sends and inbound texts, one worker
 * SIGKILLed and restarted and both APIs restarted in turn (SIGTERM) during the send. The same
 * harness is `npm run bench:scale` at 100,000 recipients; scale-out-pgbouncer.test.ts runs it
 * through PgBouncer.
 */
import { describe, it } from 'node:test';
import { runScale } from '../support/scale-harness.ts';
import { check, scenario, skipScale } from './scale-checks.ts';

describe('scale-out: 2 APIs and 3 workers on one PostgreSQL and Redis', { skip: skipScale }, () => {
  it('submits every message exactly once at the carrier and delivers every webhook event, through a worker SIGKILL and a rolling API restart', {
    timeout: 600_000,
  }, async (t) => {
    check(await runScale(scenario(false)), t);
  });
});
