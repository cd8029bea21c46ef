import type { IntegrationRow } from '../../db/queries/integrations.ts';
import type { Actor } from '../actor.ts';
import { stamp } from '../actor.ts';

/** The Integration shape of the API: never its credential. */
export function presentIntegration(row: IntegrationRow, pushes: Record<string, number> = {}) {
  const s = row.settings ?? {};
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    ...(row.api_url ? { apiUrl: row.api_url } : {}),
    syncs: {
      contacts: s.syncContacts !== false,
      optOuts: s.writeOptOuts !== false,
      messages: s.logMessages !== false,
      intervalMinutes: s.intervalMinutes ?? DEFAULT_INTERVAL_MINUTES,
      lists: s.lists ?? [],
    },
    ...(row.last_synced ? { lastSynced: new Date(row.last_synced).toISOString() } : {}),
    syncing:
      row.status === 'active' &&
      ((row.lease_until !== null && new Date(row.lease_until) > new Date()) ||
        (row.sync_due_at !== null && new Date(row.sync_due_at) <= new Date())),
    counts: {
      ...row.counts,
      pushed: pushes.done ?? 0,
      pushPending: (pushes.pending ?? 0) + (pushes.sending ?? 0),
      pushFailed: pushes.failed ?? 0,
    },
    ...(row.last_error ? { lastError: row.last_error } : {}),
    created: stamp(row.created_at, row.created_by as unknown as Actor),
    updated: stamp(row.updated_at, row.updated_by as unknown as Actor),
  };
}

/** Minutes between incremental syncs unless the connection says otherwise. */
export const DEFAULT_INTERVAL_MINUTES = 15;
