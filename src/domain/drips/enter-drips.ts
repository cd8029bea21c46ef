import { type Db, type Queryable, withSavepoint, withTx } from '../../db/client.ts';
import type { DripRow } from '../../db/queries/drips.ts';
import {
  activeDripsFor,
  contactReachable,
  type EntryRow,
  endContactExecutions,
  insertExecution,
  takeEntries,
} from '../../db/queries/drips-engine.ts';
import { classifyKeyword } from '../../messaging/keywords.ts';
import { newId } from '../../util/ids.ts';
import { normaliseKeyword } from './drip-input.ts';

/**
 * Takes up to `limit` causes from the drip entry queue and applies them, in one transaction (a
 * crash puts them all back; SKIP LOCKED lets several workers share the queue). Answers how many
 * were taken. A cause that fails unexpectedly is logged and dropped, so it cannot block the queue.
 */
export async function enterDrips(
  db: Db,
  limit: number,
  log: (msg: string) => void = () => {},
): Promise<number> {
  return withTx(db, async (tx) => {
    const entries = await takeEntries(tx, limit);
    for (const e of entries) {
      try {
        await withSavepoint(tx, () => applyEntry(tx, e));
      } catch (err) {
        log(`drip entry ${e.seq} (${e.kind}): ${(err as Error).message}`);
      }
    }
    return entries.length;
  });
}

/**
 * One cause:
 * - list-joined / contact-created: enters the contact into every active drip it starts;
 * - message-received: a reply ends the contact's running executions as `engaged` (an opt-out
 *   keyword does not: the opt-out that follows ends them as `opted-out`), then a text equal to an
 *   active drip's keyword enters the contact into that drip (that text is not a reply to it, and a
 *   contact already running it stays where it is);
 * - contact-opt-out: ends the contact's running executions as `opted-out`.
 * Opted-out and blocked contacts are never entered.
 */
async function applyEntry(tx: Queryable, e: EntryRow): Promise<void> {
  const accountId = e.account_id;
  if (e.kind === 'contact-opt-out') {
    await endContactExecutions(tx, accountId, e.contact_id, 'opted-out', e.at, { inclusive: true });
    return;
  }
  let drips: DripRow[];
  if (e.kind === 'list-joined') {
    drips = e.list_id ? await activeDripsFor(tx, accountId, { type: 'list', listId: e.list_id }) : [];
  } else if (e.kind === 'contact-created') {
    drips = await activeDripsFor(tx, accountId, { type: 'contact-created' });
  } else {
    const text = e.text ?? '';
    const keyword = normaliseKeyword(text);
    drips = keyword ? await activeDripsFor(tx, accountId, { type: 'keyword', keyword }) : [];
    if (classifyKeyword(text) !== 'opt-out') {
      await endContactExecutions(tx, accountId, e.contact_id, 'engaged', e.at, {
        exceptDripIds: drips.map((d) => d.id),
      });
    }
  }
  if (drips.length === 0 || !(await contactReachable(tx, accountId, e.contact_id))) return;
  for (const drip of drips) {
    await insertExecution(tx, accountId, {
      id: newId(),
      drip,
      contactId: e.contact_id,
      at: e.at,
      triggerMessageId: e.kind === 'message-received' ? e.message_id : null,
    });
  }
}
