import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * What a data directory's postmaster.pid says, checked against the live processes: `running` only
 * when the pid is alive, is a PostgreSQL server and runs on this very data directory. A pid file
 * whose pid is gone — or was reused by some other program — is `stale`.
 */
export type PostmasterState =
  | { state: 'none' }
  | { state: 'stale' }
  | { state: 'running'; pid: number; port: number; socketDir: string };

/** Lines of postmaster.pid (PostgreSQL's LOCK_FILE_LINE_*), 0-based. */
const PID_LINE = 0;
const DIR_LINE = 1;
const PORT_LINE = 3;
const SOCKET_LINE = 4;

async function realpath(p: string): Promise<string> {
  return fs.realpath(p).catch(() => path.resolve(p));
}

/** Whether `pid` is a live process (a zombie, exited but not yet reaped, is not). */
export async function processAlive(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to another user (PostgreSQL runs as `postgres` under root).
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return true; // no /proc (macOS): trust kill(0)
  return processState(stat) !== 'Z';
}

/** Field 3 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
function processState(stat: string): string {
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

/**
 * When the process started (clock ticks since boot, field 22 of /proc/<pid>/stat): with the pid it
 * names one process, never a later one that was given the same pid.
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/**
 * The Node process a postmaster was started by, if it still runs: its parent, when that parent is
 * not init (an orphan is re-parented to pid 1 or a subreaper) and runs `node`.
 */
export async function nodeParent(pid: number): Promise<number | undefined> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  if (!(ppid > 1) || !(await processAlive(ppid))) return undefined;
  const argv0 = (await fs.readFile(`/proc/${ppid}/cmdline`, 'utf8').catch(() => '')).split('\0')[0];
  return /^node(js)?(\d+)?$/.test(path.basename(argv0)) ? ppid : undefined;
}

/** Reads `pgdir`/postmaster.pid and decides whether the server it names still runs there. */
export async function postmasterState(pgdir: string): Promise<PostmasterState> {
  const text = await fs.readFile(path.join(pgdir, 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (text === undefined) return { state: 'none' };
  const lines = text.split('\n');
  const pid = Number(lines[PID_LINE]);
  if (!(await processAlive(pid))) return { state: 'stale' };
  if ((await realpath(lines[DIR_LINE] ?? '')) !== (await realpath(pgdir))) return { state: 'stale' };
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  if (cmdline !== undefined) {
    // The postmaster keeps its command line: `…/postgres -D <pgdir> -p <port> …`.
    const argv = cmdline.split('\0');
    const d = argv.indexOf('-D');
    const isPostgres = path.basename(argv[0] ?? '') === 'postgres';
    if (!isPostgres || d < 0 || (await realpath(argv[d + 1] ?? '')) !== (await realpath(pgdir))) {
      return { state: 'stale' };
    }
  }
  return { state: 'running', pid, port: Number(lines[PORT_LINE]), socketDir: lines[SOCKET_LINE] ?? '' };
}

/**
 * Stops a postmaster the way `pg_ctl stop -m fast` does (SIGINT: sessions are rolled back, the
 * data is checkpointed) and waits for it to exit; after `timeoutMs`, SIGQUIT (immediate; crash
 * recovery at the next start).
 */
export async function stopPostmaster(pid: number, timeoutMs = 60_000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {}
  };
  signal('SIGINT');
  const deadline = Date.now() + timeoutMs;
  while (await processAlive(pid)) {
    if (Date.now() > deadline) {
      signal('SIGQUIT');
      await new Promise((r) => setTimeout(r, 1000));
      return;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}
