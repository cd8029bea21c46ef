import type { Queryable } from '../../db/client.ts';
import { insertEvent, insertEvents } from '../../db/queries/events.ts';
import type { EventType } from '../../schemas/enums.ts';
import { newId } from '../../util/ids.ts';

/**
 * Writes an event to the outbox. Call it with the transaction that makes the change it announces,
 * so the event exists exactly when the change committed (transactional outbox).
 */
export async function emitEvent(
  tx: Queryable,
  accountId: string,
  type: EventType,
  data: object,
): Promise<string> {
  const id = newId();
  await insertEvent(tx, accountId, { id, type, data });
  return id;
}

/** emitEvent for many events of one type in one statement (bulk operations), in the order given. */
export async function emitEvents(
  tx: Queryable,
  accountId: string,
  type: EventType,
  data: object[],
): Promise<void> {
  await insertEvents(
    tx,
    accountId,
    type,
    data.map((d) => ({ id: newId(), data: d })),
  );
}
