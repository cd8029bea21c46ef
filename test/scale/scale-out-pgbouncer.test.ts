/**
 * test/scale/scale-out.test.ts through PgBouncer in transaction pooling mode: every process's
 * DATABASE_URL leads to a PgBouncer of the test's own (DATABASE_POOLER=transaction). A file of its
 * own so that each scenario has the whole per-file time limit.
 */
import { describe, it } from 'node:test';
import { pgbouncerPath } from '../support/pgbouncer.ts';
import { runScale } from '../support/scale-harness.ts';
import { check, scenario, skipScale } from './scale-checks.ts';

describe('scale-out through PgBouncer: 2 APIs and 3 workers', {
  skip: skipScale || (pgbouncerPath() ? false : 'pgbouncer is not installed (Debian package pgbouncer)'),
}, () => {
  it('submits every message exactly once and delivers every webhook event with the processes behind PgBouncer (transaction pooling)', {
    timeout: 600_000,
  }, async (t) => {
    check(await runScale(scenario(true)), t);
  });
});
