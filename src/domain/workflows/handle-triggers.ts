import { type Db, withSavepoint, withTx } from '../../db/client.ts';
import type { VersionRow } from '../../db/queries/workflows.ts';
import {
  activeVersions,
  bumpQueued,
  claimTriggerQueue,
  deleteQueued,
  stopRuns,
  type TriggerQueueRow,
  wakeReplyWaiters,
} from '../../db/queries/workflows-runs.ts';
import { enroll, hasKeyword, triggerNode } from './enroll.ts';

/** A cause that keeps failing is dropped after this many attempts (and logged). */
const MAX_ATTEMPTS = 5;

/** The active versions a queued cause enrolls its contact in. */
function matching(versions: VersionRow[], q: TriggerQueueRow): VersionRow[] {
  return versions.filter((v) => {
    const node = triggerNode(v);
    if (!node) return false;
    if (q.kind === 'contact-created') return node.typeId === 'trigger.contact-created';
    if (q.kind === 'list-joined')
      return node.typeId === 'trigger.list-joined' && node.config.listId === q.list_id;
    if (q.kind === 'message-received') {
      return (
        node.typeId === 'trigger.keyword' &&
        typeof node.config.keyword === 'string' &&
        hasKeyword(q.text ?? '', node.config.keyword)
      );
    }
    return false;
  });
}

/** Acts on one cause: stop runs on opt-out, wake reply waiters on an inbound text, enroll. */
async function handle(tx: Parameters<typeof enroll>[0], q: TriggerQueueRow, versions: VersionRow[]) {
  if (q.kind === 'contact-opt-out') {
    await stopRuns(
      tx,
      q.account_id,
      { contactId: q.contact_id },
      { code: 'CONT-010', description: 'Contact has requested no further communication.' },
    );
    return;
  }
  if (q.kind === 'message-received') await wakeReplyWaiters(tx, q.account_id, q.contact_id);
  for (const v of matching(versions, q)) await enroll(tx, q.account_id, v, q.contact_id, q.kind);
}

/**
 * Claims up to `limit` queued causes (FOR UPDATE SKIP LOCKED, in one transaction) and handles each
 * under a savepoint, deleting it when done; a failing one is retried on a later round and dropped
 * after MAX_ATTEMPTS. Answers how many were claimed.
 */
export async function handleTriggers(db: Db, limit: number, log: (msg: string) => void = () => {}) {
  return withTx(db, async (tx) => {
    const queue = await claimTriggerQueue(tx, limit);
    const versions = new Map<string, VersionRow[]>();
    for (const q of queue) {
      if (!versions.has(q.account_id)) versions.set(q.account_id, await activeVersions(tx, q.account_id));
      try {
        await withSavepoint(tx, async () => {
          await handle(tx, q, versions.get(q.account_id) ?? []);
          await deleteQueued(tx, q.account_id, q.id);
        });
      } catch (err) {
        log(`workflow trigger ${q.id} (${q.kind}): ${(err as Error).message}`);
        if (q.attempts + 1 >= MAX_ATTEMPTS) await deleteQueued(tx, q.account_id, q.id);
        else await bumpQueued(tx, q.account_id, q.id);
      }
    }
    return queue.length;
  });
}
