/** For the tests of a worker process killed mid-send: `sparrow worker` processes, message counts. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after } from 'node:test';
import type { TestService } from '../helpers.ts';

const BIN = path.resolve('bin/sparrow.js');

/**
 * Inside a `describe`: answers a function that spawns a `sparrow worker` process (as a scale-out
 * deployment runs it) with DISPATCH_LEASE_SECONDS=2 and LOG_LEVEL=warn, plus `env`. Those still
 * running after the tests are killed (SIGKILL); call this before the `after` that closes the
 * service, so they are killed first.
 */
export function workerProcesses(): (env: Record<string, string>) => ChildProcess {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
  return (env) => {
    const child = spawn(process.execPath, [BIN, 'worker'], {
      env: { ...process.env, DISPATCH_LEASE_SECONDS: '2', LOG_LEVEL: 'warn', ...env },
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  };
}

/** How many messages of the account match the SQL condition `where`. */
export async function countMessages(svc: TestService, accountId: string, where: string): Promise<number> {
  const { rows } = await svc.db.query(
    `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND ${where}`,
    [accountId],
  );
  return Number(rows[0].n);
}
