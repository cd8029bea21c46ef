import type { Db, Queryable } from '../../db/client.ts';
import { type LockedQueue, type Log, runLocked } from '../claim.ts';

/**
 * A kind of chunked background job (bulk contact operations: `CONTACT_JOBS`; contact imports:
 * `CONTACT_IMPORTS`): a locked queue of jobs, each worked one chunk at a time. A chunk is one
 * transaction that holds the job's row: its work and the job's cursor and counts commit together,
 * so a worker killed mid-chunk leaves nothing of it and the next worker does it again from the same
 * cursor.
 */
export interface ChunkedJobs<T> extends LockedQueue<T> {
  /** Works the job's next `chunkSize` units inside `tx` and moves its cursor (finished at the end). */
  chunk: (tx: Queryable, job: T, chunkSize: number, run: { db: Db; log: Log }) => Promise<void>;
}

/**
 * The engine of chunked jobs: runs up to `max` chunks of the oldest open jobs of `kind`, each in its
 * own transaction (the claim helper's locked queue). A failing chunk is logged and, when the kind
 * has a backoff, due again after it (the round goes on); otherwise it ends the round and comes
 * first again next round. Answers how many chunks ran.
 */
export function runChunks<T>(
  db: Db,
  log: Log,
  kind: ChunkedJobs<T>,
  chunkSize: number,
  max: number,
): Promise<number> {
  return runLocked(db, log, kind, max, (tx, job) => kind.chunk(tx, job, chunkSize, { db, log }));
}
