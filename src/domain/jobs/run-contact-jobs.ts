import { type Db, type Queryable, withTx } from '../../db/client.ts';
import {
  type ContactFields,
  type ContactRow,
  findContacts,
  type MergeMode,
} from '../../db/queries/contacts.ts';
import { optInContact, optOutContact } from '../../db/queries/inbound.ts';
import {
  advanceContactJob,
  CONTACT_JOB_QUEUE,
  type JobRow,
  lockOpenContactJob,
  nextJobContacts,
} from '../../db/queries/jobs.ts';
import { addListMembers, findList, isSmartList, removeListMember } from '../../db/queries/lists.ts';
import type { Actor } from '../actor.ts';
import { presentContacts } from '../contacts/get-contact.ts';
import { removeContactIn, removeContactsIn } from '../contacts/remove-contact.ts';
import { applyContactUpdate, applyContactUpdates } from '../contacts/update-contact.ts';
import { emitEvent } from '../events/emit.ts';
import type { ChunkedJobs } from './run-chunks.ts';
import type { ContactJobRequest } from './start-contact-job.ts';

/** What one chunk did. */
interface ChunkResult {
  changed: number;
  failures: number;
}

/**
 * Runs one chunk of the oldest open bulk contact job, in one transaction that holds the job row:
 * the next `chunkSize` selected contacts after its cursor get the action (each through the same
 * path as the single-contact endpoint, with the same events), and the cursor and counts move in
 * the same commit. A worker killed mid-chunk rolls the whole chunk back; the next worker does it
 * again from the same cursor, so no contact is changed twice. A contact already in the wanted state
 * is done without a change (and without an event); a contact deleted since the job began is done,
 * unchanged. Answers whether a chunk ran.
 */
export async function runContactJobChunk(db: Db, chunkSize: number): Promise<boolean> {
  return withTx(db, async (tx) => {
    const job = await lockOpenContactJob(tx);
    if (!job) return false;
    await runChunk(tx, job, chunkSize);
    return true;
  });
}

/** One chunk of a locked job: its action on the next contacts, and the job's progress. */
async function runChunk(tx: Queryable, job: JobRow, chunkSize: number): Promise<void> {
  const ids = await nextJobContacts(tx, job, chunkSize);
  const r = ids.length > 0 ? await applyAction(tx, job, ids) : { changed: 0, failures: 0 };
  await advanceContactJob(tx, job, {
    cursor: ids.at(-1) ?? null,
    done: ids.length,
    changed: r.changed,
    failures: r.failures,
    finished: ids.length < chunkSize,
  });
}

/**
 * Bulk contact jobs as the chunk engine runs them (`runChunks`): a chunk is `runChunk`; a failing
 * chunk is logged and ends the round (it is tried again next round).
 */
export const CONTACT_JOBS: ChunkedJobs<JobRow> = {
  name: 'bulk-contacts',
  spec: CONTACT_JOB_QUEUE,
  describe: (j) => `job ${j.id} of account ${j.account_id}`,
  chunk: (tx, job, chunkSize) => runChunk(tx, job, chunkSize),
};

async function applyAction(tx: Queryable, job: JobRow, ids: string[]): Promise<ChunkResult> {
  const accountId = job.account_id;
  const req = job.request as unknown as ContactJobRequest;
  const by = job.created_by as Actor;
  if (req.action === 'addToList' || req.action === 'removeFromList') {
    const list = req.listId ? await findList(tx, accountId, req.listId) : undefined;
    // The list was deleted (or made smart) since the job began: nothing of it can be done.
    if (!list || isSmartList(list)) return { changed: 0, failures: ids.length };
    if (req.action === 'addToList') {
      const r = await addListMembers(tx, accountId, list.id, ids, !list.double_opt_in?.enabled);
      return { changed: r.added, failures: 0 };
    }
    let changed = 0;
    for (const id of ids) if (await removeListMember(tx, accountId, list.id, id)) changed++;
    return { changed, failures: 0 };
  }
  const rows = await findContacts(tx, accountId, ids);
  rows.sort((a, b) => (a.id < b.id ? -1 : 1));
  if (req.action !== 'optOut' && req.action !== 'optIn') {
    // The whole chunk in one statement of the single path; should it fail, contact by contact.
    await tx.query('SAVEPOINT bulk_chunk');
    try {
      const changed = await applyToContacts(tx, job, req, rows, by);
      await tx.query('RELEASE SAVEPOINT bulk_chunk');
      return { changed, failures: 0 };
    } catch {
      await tx.query('ROLLBACK TO SAVEPOINT bulk_chunk');
    }
  }
  let changed = 0;
  let failures = 0;
  for (const row of rows) {
    // One savepoint per contact: a contact that cannot take the change is counted, the rest go on.
    await tx.query('SAVEPOINT bulk_contact');
    try {
      if (await applyToContact(tx, job, req, row, by)) changed++;
      await tx.query('RELEASE SAVEPOINT bulk_contact');
    } catch {
      await tx.query('ROLLBACK TO SAVEPOINT bulk_contact');
      failures++;
    }
  }
  return { changed, failures };
}

/** The fields an edit action gives one contact; undefined when it is already as asked. */
function editOf(
  req: ContactJobRequest,
  row: ContactRow,
): { fields: ContactFields; mode: MergeMode } | undefined {
  switch (req.action) {
    case 'block':
      return row.blocked_at ? undefined : { fields: { blocked: new Date() }, mode: 'set' };
    case 'unblock':
      return row.blocked_at ? { fields: { blocked: null }, mode: 'set' } : undefined;
    case 'tag': {
      const wanted = req.tags ?? [];
      if (wanted.every((t) => row.tags.some((h) => h.tag === t.tag))) return undefined;
      return { fields: { tags: wanted }, mode: 'append' };
    }
    case 'untag': {
      const drop = new Set((req.tags ?? []).map((t) => t.tag));
      if (!row.tags.some((t) => drop.has(t.tag))) return undefined;
      return { fields: { tags: row.tags.filter((t) => !drop.has(t.tag)) }, mode: 'set' };
    }
    default:
      return undefined;
  }
}

/** A chunk's edit or deletion, set-based through the single path's statements; answers how many changed. */
async function applyToContacts(
  tx: Queryable,
  job: JobRow,
  req: ContactJobRequest,
  rows: ContactRow[],
  by: Actor,
): Promise<number> {
  if (req.action === 'delete')
    return removeContactsIn(
      tx,
      job.account_id,
      rows.map((r) => r.id),
      by,
    );
  const edits = rows.flatMap((row) => {
    const e = editOf(req, row);
    return e ? [{ id: row.id, ...e }] : [];
  });
  // The edits of one action share their mode.
  const mode = edits[0]?.mode ?? 'set';
  return (await applyContactUpdates(tx, job.account_id, edits, mode, by)).length;
}

/** Applies the action to one contact; answers whether it changed (and its event was written). */
async function applyToContact(
  tx: Queryable,
  job: JobRow,
  req: ContactJobRequest,
  row: ContactRow,
  by: Actor,
): Promise<boolean> {
  const accountId = job.account_id;
  if (req.action === 'delete') return removeContactIn(tx, accountId, row.id, by);
  const edit = editOf(req, row);
  if (edit)
    return (await applyContactUpdate(tx, accountId, row.id, edit.fields, edit.mode, by)) !== undefined;
  switch (req.action) {
    case 'optOut':
    case 'optIn': {
      const changed =
        req.action === 'optOut'
          ? await optOutContact(tx, accountId, row.id, by)
          : await optInContact(tx, accountId, row.id, by);
      if (!changed) return false;
      const [contact] = await presentContacts(tx, accountId, [changed]);
      await emitEvent(tx, accountId, req.action === 'optOut' ? 'contact-opt-out' : 'contact-opt-in', {
        contact,
        source: 'bulk',
        jobId: job.id,
      });
      return true;
    }
    default:
      return false;
  }
}
