import fs from 'node:fs/promises';
import path from 'node:path';
import { processAlive, processStartTime } from './postmaster.ts';

/**
 * DATA_DIR/server.json (mode 0600): which process owns the embedded PostgreSQL running on this data
 * directory and where it listens, so that the admin CLI connects to it instead of starting a second
 * server. Written once the server is up, removed when its owner stops it.
 */
export interface ServerRecord {
  /** The Node process that started the server, and when it started (pid reuse cannot fool it). */
  ownerPid: number;
  ownerStart?: string;
  /** `service` (sparrow start) or `cli` (a one-off command that found no server running). */
  role: 'service' | 'cli';
  postmasterPid: number;
  host: string;
  port: number;
  /** Unix-socket directory, or null: the embedded server listens on TCP loopback only. */
  socketDir: string | null;
  startedAt: string;
}

export const recordPath = (dataDir: string) => path.join(dataDir, 'server.json');

export async function readRecord(dataDir: string): Promise<ServerRecord | undefined> {
  const text = await fs.readFile(recordPath(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as ServerRecord;
  } catch {
    return undefined;
  }
}

export async function writeRecord(
  dataDir: string,
  r: Omit<ServerRecord, 'ownerPid' | 'ownerStart' | 'startedAt'>,
): Promise<void> {
  const record: ServerRecord = {
    ownerPid: process.pid,
    ownerStart: await processStartTime(process.pid),
    startedAt: new Date().toISOString(),
    ...r,
  };
  const tmp = `${recordPath(dataDir)}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, recordPath(dataDir));
}

/** Removes the record if this process wrote it (another owner's record is left alone). */
export async function removeRecord(dataDir: string): Promise<void> {
  const r = await readRecord(dataDir);
  if (r?.ownerPid === process.pid) await fs.rm(recordPath(dataDir), { force: true });
}

/** Whether the record names another process, still alive (the same one that wrote it). */
export async function otherOwnerAlive(r: ServerRecord): Promise<boolean> {
  if (r.ownerPid === process.pid || !(await processAlive(r.ownerPid))) return false;
  const start = await processStartTime(r.ownerPid);
  return r.ownerStart === undefined || start === undefined || start === r.ownerStart;
}
