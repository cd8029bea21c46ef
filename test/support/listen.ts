/** A listener for an account's events, for the tests that read the events of a send. */
import type { Queryable } from '../../src/db/client.ts';
import { insertWebhook } from '../../src/db/queries/webhooks.ts';
import { generateSecret } from '../../src/domain/webhooks/signing.ts';
import { EVENT_TYPES, type EventType } from '../../src/schemas/enums.ts';
import { newId } from '../../src/util/ids.ts';

/** Where the listening subscriptions point: a closed loopback port (discard), so nothing answers. */
export const LISTENER_DESTINATION = 'http://127.0.0.1:9/events';

/**
 * Makes an account hear `types` (every published event type by default): an active webhook
 * subscribed to them, straight in the database, whose destination is a closed loopback port.
 * The send path writes its per-recipient events (`contact-created`, `conversation-started`,
 * `message-sent`, `message-status`) only where the account has a listener for them
 * (sparrow_event_heard, migration 0400; the outbox in docs/architecture.md), so a test that reads
 * those rows makes its account listen before the send. The deliveries this queues (only if the
 * webhook workers run) fail to connect and are retried, to that subscription only: they add to
 * no other subscription's deliveries. Answers the subscription's id. Calling it again for the same
 * account widens the subscription to the types given as well.
 */
export async function listenToEvents(
  db: Queryable,
  accountId: string,
  types: readonly EventType[] = EVENT_TYPES,
): Promise<string> {
  const row = await insertWebhook(db, accountId, {
    id: newId(),
    destination: LISTENER_DESTINATION,
    eventTypes: [...new Set(types)],
    secret: generateSecret(),
    by: {},
  });
  if (row) return row.id;
  const { rows } = await db.query<{ id: string }>(
    `UPDATE webhooks SET event_types = ARRAY(SELECT DISTINCT unnest(event_types || $3::text[])), status = 'active'
      WHERE account_id = $1 AND destination = $2 RETURNING id`,
    [accountId, LISTENER_DESTINATION, [...types]],
  );
  return rows[0].id;
}
