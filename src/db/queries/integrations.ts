/**
 * CRM integrations (issue 29): the connections. The sync's lease, progress and the contacts it
 * writes are in integration-sync.ts; the pushes Sparrow owes a CRM in integration-pushes.ts.
 */
import type { Queryable } from '../client.ts';

export interface IntegrationRow {
  account_id: string;
  id: string;
  type: 'hubspot' | 'pipedrive' | 'activecampaign';
  status: 'active' | 'error' | 'disconnected';
  credentials: string;
  api_url: string | null;
  settings: IntegrationSettings;
  sync_state: SyncState;
  counts: Record<string, number>;
  last_synced: Date | null;
  last_error: { code: string; description: string; at: string } | null;
  sync_due_at: Date | null;
  lease_until: Date | null;
  events_cursor: string | null;
  push_due_at: Date | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
}

/** What a connection syncs. */
export interface IntegrationSettings {
  syncContacts?: boolean;
  writeOptOuts?: boolean;
  logMessages?: boolean;
  /** Minutes between incremental syncs. */
  intervalMinutes?: number;
  /** CRM lists kept in Sparrow lists. */
  lists?: { crmListId: string; listId: string }[];
}

/** Where a sync run is: its phase, the page cursor, the list it is on, and its running counts. */
export interface SyncState {
  /** 'full' until the first full sync finished; then 'incremental'. */
  mode?: 'full' | 'incremental';
  /** When the run in progress started (its end becomes the next run's `since`). */
  runStartedAt?: string;
  /** The lower bound of the incremental run in progress. */
  since?: string;
  /** Pages this run has read. */
  pages?: number;
  /** This incremental run reads everyone (the CRM refused the changed-since query). */
  fullRun?: boolean;
  /** The next page of the current phase. */
  cursor?: string;
  /** Which phase of the run: people, then each list (by index). */
  phase?: 'people' | 'lists';
  listIndex?: number;
  /** Counts of the run in progress. */
  run?: Record<string, number>;
  /** Attempts that hit a failure in a row (backoff). */
  failures?: number;
}

export async function insertIntegration(
  db: Queryable,
  accountId: string,
  i: {
    id: string;
    type: string;
    credentials: string;
    apiUrl: string | null;
    settings: IntegrationSettings;
    by: object;
  },
): Promise<IntegrationRow | undefined> {
  const { rows } = await db.query<IntegrationRow>(
    `INSERT INTO integrations (account_id, id, type, credentials, api_url, settings, sync_state, events_cursor,
       push_due_at, created_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6, '{"mode":"full"}', sparrow_uuidv7(), now(), $7, $7)
     ON CONFLICT (account_id, type) WHERE status <> 'disconnected' DO NOTHING
     RETURNING *`,
    [accountId, i.id, i.type, i.credentials, i.apiUrl, i.settings, i.by],
  );
  return rows[0];
}

export async function findIntegration(db: Queryable, accountId: string, id: string) {
  const { rows } = await db.query<IntegrationRow>(
    `SELECT * FROM integrations WHERE account_id = $1 AND id = $2 AND status <> 'disconnected'`,
    [accountId, id],
  );
  return rows[0];
}

/** A live connection by id alone (a CRM's webhook names it; the signature then proves who calls). */
export async function findIntegrationAnyAccount(db: Queryable, id: string) {
  const { rows } = await db.query<IntegrationRow>(
    `SELECT * FROM integrations WHERE id = $1 AND status <> 'disconnected'`,
    [id],
  );
  return rows[0];
}

export async function listIntegrations(db: Queryable, accountId: string, offset: number, limit: number) {
  const [items, count] = await Promise.all([
    db.query<IntegrationRow>(
      `SELECT * FROM integrations WHERE account_id = $1 AND status <> 'disconnected'
       ORDER BY created_at, id OFFSET $2 LIMIT $3`,
      [accountId, offset, limit],
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM integrations WHERE account_id = $1 AND status <> 'disconnected'`,
      [accountId],
    ),
  ]);
  return { items: items.rows, totalCount: count.rows[0].n };
}

/** New settings and/or credentials; a new credential clears the error and makes the sync due now. */
export async function updateIntegration(
  db: Queryable,
  accountId: string,
  id: string,
  c: { settings?: IntegrationSettings; credentials?: string; apiUrl?: string | null; by: object },
) {
  const { rows } = await db.query<IntegrationRow>(
    `UPDATE integrations SET
       settings = coalesce($3, settings),
       credentials = coalesce($4, credentials),
       api_url = CASE WHEN $4::text IS NULL THEN api_url ELSE $5 END,
       status = CASE WHEN $4::text IS NULL THEN status ELSE 'active' END,
       last_error = CASE WHEN $4::text IS NULL THEN last_error ELSE NULL END,
       sync_due_at = now(),
       updated_at = now(), updated_by = $6
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected' RETURNING *`,
    [accountId, id, c.settings ?? null, c.credentials ?? null, c.apiUrl ?? null, c.by],
  );
  return rows[0];
}

/** Stops syncing: the connection is marked disconnected and its credential dropped. */
export async function disconnectIntegration(db: Queryable, accountId: string, id: string, by: object) {
  const { rows } = await db.query<IntegrationRow>(
    `UPDATE integrations SET status = 'disconnected', credentials = '', sync_due_at = NULL, lease_until = NULL,
       updated_at = now(), updated_by = $3
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected' RETURNING *`,
    [accountId, id, by],
  );
  return rows[0];
}

/** Removes the CRM's id field from every contact of the account (a disconnect that asks for it). */
export async function clearCrmIds(db: Queryable, accountId: string, type: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE contacts SET integrations = integrations - $2::text WHERE account_id = $1 AND integrations ? $2::text`,
    [accountId, type],
  );
  return rowCount ?? 0;
}

export async function requestSync(db: Queryable, accountId: string, id: string) {
  const { rows } = await db.query<IntegrationRow>(
    `UPDATE integrations SET sync_due_at = now()
     WHERE account_id = $1 AND id = $2 AND status <> 'disconnected' RETURNING *`,
    [accountId, id],
  );
  return rows[0];
}
