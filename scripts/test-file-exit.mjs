/**
 * Loaded into every test file's process (scripts/run-tests.ts passes it to node's test runner,
 * which passes it on to the files' processes): once the file's tests and hooks have ended, the
 * process ends half a second later (time for its last results to reach the runner), even if a
 * timer or socket it left pending would keep it alive. A bound of 60 s that an answer had beaten
 * kept one file's process 55 s past its last test. (node's --test-force-exit does this too, but
 * also ends the runner before its second reporter, the slowest files, has printed.)
 */
import { after } from 'node:test';

if (process.env.NODE_TEST_CONTEXT?.startsWith('child')) {
  after(() => {
    setTimeout(() => process.exit(), 500).unref();
  });
}
