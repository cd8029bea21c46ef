/** CPU seconds of process trees, from /proc (Linux): what a peer in a benchmark race spent. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../src/db/client.ts';

const TICK = 100; // getconf CLK_TCK on Linux

function procStat(pid: number): { ppid: number; ticks: number } | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

/** CPU seconds of these processes and all their live descendants (the dead ones are in cutime). */
export function treeCpuSeconds(roots: number[]): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = procStat(Number(name));
    if (s) stats.set(Number(name), s);
  }
  const children = new Map<number, number[]>();
  for (const [pid, s] of stats) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  let ticks = 0;
  const seen = new Set<number>();
  const walk = (pid: number) => {
    if (seen.has(pid)) return;
    seen.add(pid);
    ticks += stats.get(pid)?.ticks ?? 0;
    for (const c of children.get(pid) ?? []) walk(c);
  };
  for (const r of roots) walk(r);
  return ticks / TICK;
}

/** The postmaster's pid of this database when its data directory is readable here (else undefined). */
export async function postmasterPid(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ data_directory: string }>('SHOW data_directory');
  try {
    const pid = Number(
      readFileSync(path.join(rows[0].data_directory, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
