import type { Queryable } from '../client.ts';

/** A webhook subscription as stored. */
export interface WebhookRow {
  account_id: string;
  id: string;
  destination: string;
  event_types: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  status: 'active' | 'disabled' | 'paused';
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
  /**
   * The actors (`user:<id>`, or an API client's id) that created it, set its destination or were
   * answered its secret: when one of them leaves the account it is paused.
   */
  holders: string[];
  /** While paused: since when and why (`creator-removed`). */
  paused_at: Date | null;
  paused_reason: string | null;
}

/** Answers undefined when the account already has a subscription for this destination. */
export async function insertWebhook(
  db: Queryable,
  accountId: string,
  w: { id: string; destination: string; eventTypes: string[]; secret: string; by: object; holder?: string },
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    `INSERT INTO webhooks (account_id, id, destination, event_types, secret, created_by, updated_by, holders)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7)
     ON CONFLICT (account_id, destination) DO NOTHING RETURNING *`,
    [accountId, w.id, w.destination, w.eventTypes, w.secret, w.by, w.holder ? [w.holder] : []],
  );
  return rows[0];
}

export async function findWebhook(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>('SELECT * FROM webhooks WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return rows[0];
}

/** Finds a subscription by any of the spellings of its destination. */
export async function findWebhookByDestination(
  db: Queryable,
  accountId: string,
  destinations: string[],
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    'SELECT * FROM webhooks WHERE account_id = $1 AND destination = ANY ($2::text[]) ORDER BY created_at LIMIT 1',
    [accountId, destinations],
  );
  return rows[0];
}

export async function listWebhooks(db: Queryable, accountId: string, offset: number, limit: number) {
  const [items, count] = await Promise.all([
    db.query<WebhookRow>(
      'SELECT * FROM webhooks WHERE account_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT $3',
      [accountId, offset, limit],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhooks WHERE account_id = $1', [accountId]),
  ]);
  return { items: items.rows, totalCount: count.rows[0].n };
}

/**
 * Applies the given changes; `status: 'active'` also clears the disabled and failing marks, and any
 * status clears the paused mark. A new destination adds `holder` to the holders.
 */
export async function updateWebhook(
  db: Queryable,
  accountId: string,
  id: string,
  c: {
    destination?: string;
    eventTypes?: string[];
    status?: 'active' | 'disabled';
    disabledReason?: string;
    by: object;
    holder?: string;
  },
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET
       destination = coalesce($3, destination),
       event_types = coalesce($4, event_types),
       status = coalesce($5, status),
       disabled_at = CASE WHEN $5 = 'active' THEN NULL WHEN $5 = 'disabled' AND status <> 'disabled' THEN now() ELSE disabled_at END,
       disabled_reason = CASE WHEN $5 = 'active' THEN NULL WHEN $5 = 'disabled' AND status <> 'disabled' THEN $6 ELSE disabled_reason END,
       failing_since = CASE WHEN $5 = 'active' THEN NULL ELSE failing_since END,
       paused_at = CASE WHEN $5 IS NULL THEN paused_at END,
       paused_reason = CASE WHEN $5 IS NULL THEN paused_reason END,
       holders = CASE WHEN $3 IS NOT NULL AND $8::text IS NOT NULL AND NOT ($8 = ANY (holders)) THEN holders || $8::text ELSE holders END,
       updated_at = now(), updated_by = $7
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    [
      accountId,
      id,
      c.destination ?? null,
      c.eventTypes ?? null,
      c.status ?? null,
      c.disabledReason ?? null,
      c.by,
      c.holder ?? null,
    ],
  );
  return rows[0];
}

export async function deleteWebhook(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhooks WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * Installs a new secret; the current one keeps signing alongside it for `graceMs`. `holder`, who is
 * answered the new secret, joins the holders.
 */
export async function rotateWebhookSecret(
  db: Queryable,
  accountId: string,
  id: string,
  secret: string,
  graceMs: number,
  by: object,
  holder?: string,
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET previous_secret = secret, secret = $3,
       previous_secret_expires_at = now() + $4 * interval '1 millisecond', updated_at = now(), updated_by = $5,
       holders = CASE WHEN $6::text IS NOT NULL AND NOT ($6 = ANY (holders)) THEN holders || $6::text ELSE holders END
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    [accountId, id, secret, graceMs, by, holder ?? null],
  );
  return rows[0];
}

/**
 * Pauses the account's subscriptions held by any of `holders` (active or disabled: a disabled one
 * could otherwise be re-enabled by anyone with `webhooks:write`); answers the ones paused now.
 */
export async function pauseWebhooksHeldBy(
  db: Queryable,
  accountId: string,
  holders: string[],
  reason: string,
): Promise<WebhookRow[]> {
  if (holders.length === 0) return [];
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET status = 'paused', paused_at = now(), paused_reason = $3, updated_at = now()
      WHERE account_id = $1 AND holders && $2::text[] AND status <> 'paused'
      RETURNING *`,
    [accountId, holders, reason],
  );
  return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
}

/** Resumes a paused subscription (an administrator confirmed it): active, its failure record cleared. */
export async function confirmPausedWebhook(
  db: Queryable,
  accountId: string,
  id: string,
  by: object,
): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    `UPDATE webhooks SET status = 'active', paused_at = NULL, paused_reason = NULL, disabled_at = NULL,
       disabled_reason = NULL, failing_since = NULL, updated_at = now(), updated_by = $3
      WHERE account_id = $1 AND id = $2 AND status = 'paused' RETURNING *`,
    [accountId, id, by],
  );
  return rows[0];
}

/** Clears the failing mark of subscriptions that just had a successful delivery. */
export async function markWebhooksHealthy(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    'UPDATE webhooks SET failing_since = NULL WHERE id = ANY ($1::uuid[]) AND failing_since IS NOT NULL',
    [ids],
  );
}

/**
 * Records failures: starts the failing mark where absent, and disables subscriptions that are
 * gone (410) or have been failing for longer than `disableAfterMs`. Answers the ones disabled now.
 */
export async function markWebhooksFailing(
  db: Queryable,
  failing: string[],
  gone: string[],
  disableAfterMs: number,
): Promise<{ account_id: string; id: string; destination: string; disabled_reason: string }[]> {
  if (failing.length === 0 && gone.length === 0) return [];
  await db.query(
    'UPDATE webhooks SET failing_since = now() WHERE id = ANY ($1::uuid[]) AND failing_since IS NULL',
    [failing],
  );
  const { rows } = await db.query<{
    account_id: string;
    id: string;
    destination: string;
    disabled_reason: string;
  }>(
    `UPDATE webhooks SET status = 'disabled', disabled_at = now(), updated_at = now(),
       disabled_reason = CASE WHEN id = ANY ($2::uuid[]) THEN 'The destination answered 410 Gone.'
                              ELSE $4 END
     WHERE status = 'active' AND (id = ANY ($2::uuid[])
        OR (id = ANY ($1::uuid[]) AND failing_since <= now() - $3 * interval '1 millisecond'))
     RETURNING account_id, id, destination, disabled_reason`,
    [failing, gone, disableAfterMs, `Every delivery failed for ${formatSpan(disableAfterMs)}.`],
  );
  return rows;
}

function formatSpan(ms: number): string {
  if (ms >= 86_400_000 && ms % 86_400_000 === 0) return `${ms / 86_400_000} days`;
  if (ms >= 3_600_000) return `${Math.round(ms / 360_000) / 10} hours`;
  return `${Math.round(ms / 100) / 10} seconds`;
}

/** Every subscription's stored secrets (see domain/secrets); `lock` takes row locks for re-sealing. */
export async function webhookSecrets(
  db: Queryable,
  lock: boolean,
): Promise<{ account_id: string; id: string; secret: string; previous_secret: string | null }[]> {
  const { rows } = await db.query(
    `SELECT account_id, id, secret, previous_secret FROM webhooks ORDER BY account_id, id${lock ? ' FOR UPDATE' : ''}`,
  );
  return rows;
}

export async function setWebhookSecrets(
  db: Queryable,
  accountId: string,
  id: string,
  secret: string,
  previousSecret: string | null,
): Promise<void> {
  await db.query('UPDATE webhooks SET secret = $3, previous_secret = $4 WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
    secret,
    previousSecret,
  ]);
}
