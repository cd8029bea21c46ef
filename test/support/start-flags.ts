/**
 * The Node flags `npm start` runs the service with, read from package.json's start script (their
 * one definition): the tests and benchmarks that run the service "as `npm start` runs it" in a
 * child process of their own pass these, so that a flag changed there changes for all of them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

function readStartFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = pkg.scripts.start.trim().split(/\s+/);
  const entry = words.indexOf('bin/sparrow.js');
  if (words[0] !== 'node' || entry < 0)
    throw new Error(`package.json's start script is not "node … bin/sparrow.js start"`);
  return words.slice(1, entry);
}

/** E.g. `['--max-old-space-size=256', '--max-semi-space-size=32']`. */
export const START_FLAGS: readonly string[] = readStartFlags();
