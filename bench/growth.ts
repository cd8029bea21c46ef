/**
 * `npm run bench:growth`: does sending slow down as history grows? Runs `bench:send` (the filter
 * send only) at N recipients twice, each on a fresh database: empty, and holding OLD old messages
 * (final, spread over the past year, in their month partitions). Prints both end-to-end times and
 * their ratio; the target is within 20 % (docs/scaling.md).
 * Env: N (default 1000000), OLD (default 10000000), DATABASE_URL (else embedded PostgreSQL).
 */
import { spawn } from 'node:child_process';
import { fmt } from './support.ts';

const N = process.env.N ?? '1000000';
const OLD = process.env.OLD ?? '10000000';

/** One bench:send run; answers its end-to-end time in ms (its output is passed through). */
function send(old: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=256', '--import', 'tsx', 'bench/send.ts'], {
      env: { ...process.env, N, OLD: old, NAMED: 'none' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('exit', (code) => {
      const m = /POST to the last message sent: ([\d,]+) ms/.exec(out);
      if (code !== 0 || !m) reject(new Error(`bench:send (OLD=${old}) exited ${code}`));
      else resolve(Number(m[1].replaceAll(',', '')));
    });
  });
}

const empty = await send('0');
const grown = await send(OLD);
console.log(`\nbench:growth — N = ${fmt(Number(N))} recipients, end to end (POST to the last message sent)`);
console.log(
  `empty database:                       ${fmt(empty)} ms = ${fmt((Number(N) * 1000) / empty)} messages/s`,
);
console.log(
  `holding ${fmt(Number(OLD))} old messages: ${fmt(grown)} ms = ${fmt((Number(N) * 1000) / grown)} messages/s`,
);
console.log(`ratio: ${fmt(grown / empty, 2)} (target: at most 1.20)`);
