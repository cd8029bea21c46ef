import type { Db } from '../../db/client.ts';
import {
  claimPushes,
  collectPushes,
  markPushesDone,
  markPushesFailed,
  type PushRow,
  schedulePushes,
} from '../../db/queries/integration-pushes.ts';
import type { IntegrationRow } from '../../db/queries/integrations.ts';
import { type CrmClient, CrmError, type CrmWrite } from './crm/types.ts';

/** Pushes one round claims at most; the events scanned per collection. */
const PUSH_BATCH = 100;
const COLLECT_BATCH = 1000;
/** Attempts before a push is given up ('failed', counted as pushFailed). */
export const MAX_PUSH_ATTEMPTS = 8;
const PUSH_LEASE_SECONDS = 60;
/** How many pushes go to the CRM in one call: HubSpot logs messages in batches of 100; the others one note a call. */
const BATCH_SIZE: Record<string, number> = { hubspot: 100, pipedrive: 1, activecampaign: 1 };

const backoffMs = (attempts: number) => Math.min(30 * 60_000, 5_000 * 2 ** Math.max(0, attempts - 1));

/** The marker a push carries in the CRM (the note's last line), by which a lost outcome is recognised. */
export const markerOf = (p: Pick<PushRow, 'kind' | 'event_id'>) => `sparrow:${p.kind}:${p.event_id}`;

function toWrite(p: PushRow): CrmWrite {
  return {
    crmId: Number(p.crm_id),
    marker: markerOf(p),
    kind: p.kind,
    at: p.payload.at,
    text: p.payload.text,
    direction: p.payload.direction,
    from: p.payload.from,
    to: p.payload.to,
  };
}

/**
 * Writes what the connection owes its CRM: the account's new opt-outs, opt-ins and messages of
 * synced contacts become pushes (once each), then up to PUSH_BATCH due pushes are sent, in batches
 * where the CRM takes them, each batch marked done as soon as the CRM accepted it. A push whose
 * worker died mid-call ('sending' with its lease run out) is looked up in the CRM by its marker
 * first and sent again only if absent: never twice. Throws CrmError('auth') for a revoked credential.
 */
export async function pushToCrm(db: Db, row: IntegrationRow, client: CrmClient): Promise<void> {
  for (let i = 0; i < 5; i++) if ((await collectPushes(db, row, COLLECT_BATCH)) < COLLECT_BATCH) break;
  const pushes = await claimPushes(db, row, PUSH_BATCH, PUSH_LEASE_SECONDS);
  try {
    // Outcomes lost with a killed worker: ask the CRM.
    const uncertain = pushes.filter((p) => p.status === 'sending');
    const settled = new Set<string>();
    const byPerson = new Map<string, PushRow[]>();
    for (const p of uncertain) byPerson.set(p.crm_id, [...(byPerson.get(p.crm_id) ?? []), p]);
    for (const [crmId, ps] of byPerson) {
      const found = await client.written(Number(crmId), ps.map(markerOf));
      for (const p of ps) if (found.has(markerOf(p))) settled.add(p.event_id);
    }
    await markPushesDone(db, row.id, [...settled]);
    const todo = pushes.filter((p) => !settled.has(p.event_id));
    const size = BATCH_SIZE[row.type] ?? 1;
    for (let i = 0; i < todo.length; i += size) {
      const chunk = todo.slice(i, i + size);
      const ids = chunk.map((p) => p.event_id);
      try {
        await client.write(chunk.map(toWrite));
        await markPushesDone(db, row.id, ids);
      } catch (err) {
        if (!(err instanceof CrmError)) throw err;
        if (err.kind === 'auth') throw err;
        // A person deleted in the CRM: nothing to write to.
        const max = err.kind === 'gone' ? 0 : MAX_PUSH_ATTEMPTS;
        const rest = todo.slice(i).map((p) => p.event_id);
        const wait = err.kind === 'rate' ? (err.retryAfterMs ?? 10_000) : backoffMs(chunk[0].attempts);
        await markPushesFailed(db, row.id, err.kind === 'gone' ? ids : rest, err.message, wait, max);
        if (err.kind !== 'gone') return;
      }
    }
  } finally {
    await schedulePushes(db, row.account_id, row.id);
  }
}
