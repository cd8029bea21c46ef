import type { AppContext } from '../../context.ts';
import {
  claimIntegration,
  failSync,
  releaseDueNow,
  releaseIntegration,
  syncStateOf,
} from '../../db/queries/integration-sync.ts';
import type { IntegrationRow } from '../../db/queries/integrations.ts';
import { CrmError } from './crm/types.ts';
import { clientOf, crmAccess } from './crm-access.ts';
import { pushToCrm } from './push-to-crm.ts';
import { SYNC_LEASE_SECONDS, syncPeople } from './sync-people.ts';

const backoffMs = (failures: number) => Math.min(30 * 60_000, 10_000 * 2 ** Math.max(0, failures - 1));

/**
 * One round of the integrations worker: leases a connection whose sync or pushes are due, runs its
 * sync (or the next pages of it) and its pushes, and hands the lease back. A 429 waits Retry-After
 * (the place in the sync kept); a refused credential puts the connection in `error` (INT-002, no
 * retry until a new one is given); other failures retry with a backoff. Answers whether there was
 * a connection to work on.
 */
export async function runIntegrationsRound(ctx: AppContext): Promise<boolean> {
  const row = await claimIntegration(ctx.db, SYNC_LEASE_SECONDS);
  if (!row) return false;
  await workOn(ctx, row);
  return true;
}

async function workOn(ctx: AppContext, row: IntegrationRow): Promise<void> {
  const access = crmAccess(ctx);
  let finished = true;
  try {
    const client = clientOf(access, row);
    if (row.sync_due_at && new Date(row.sync_due_at) <= new Date()) {
      finished = await syncPeople(ctx.db, row, client);
    }
    await pushToCrm(ctx.db, row, client);
    if (finished) await releaseIntegration(ctx.db, row.account_id, row.id);
    else await releaseDueNow(ctx.db, row.account_id, row.id);
  } catch (err) {
    const state = (await syncStateOf(ctx.db, row.account_id, row.id)) ?? row.sync_state;
    if (err instanceof CrmError) {
      const revoked = err.kind === 'auth';
      const failures = (state.failures ?? 0) + (err.kind === 'rate' ? 0 : 1);
      const wait = err.kind === 'rate' ? (err.retryAfterMs ?? 10_000) : backoffMs(failures);
      ctx.log(`integrations ${row.type} ${row.id}: ${err.message}`);
      await failSync(
        ctx.db,
        row.account_id,
        row.id,
        { ...state, failures: revoked ? 0 : failures },
        { code: revoked ? 'INT-002' : 'INT-003', description: err.message },
        wait,
        revoked,
      );
      return;
    }
    ctx.log(`integrations ${row.type} ${row.id}: ${(err as Error).message}`);
    await failSync(
      ctx.db,
      row.account_id,
      row.id,
      state,
      { code: 'INT-003', description: (err as Error).message },
      backoffMs((state.failures ?? 0) + 1),
      false,
    );
  }
}
