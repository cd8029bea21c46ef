import type { Db } from '../../db/client.ts';
import { accountHomeCountry } from '../../db/queries/home-country.ts';
import {
  addListMembers,
  type CrmContactRecord,
  contactsByCrmIds,
  finishSync,
  saveProgress,
  touchListSource,
  upsertCrmContacts,
} from '../../db/queries/integration-sync.ts';
import type { IntegrationRow, SyncState } from '../../db/queries/integrations.ts';
import { parseMobile, readingCountry } from '../../messaging/phone.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { type CrmClient, CrmError, type CrmPerson } from './crm/types.ts';
import { DEFAULT_INTERVAL_MINUTES } from './present-integration.ts';

/** How long a worker holds a connection between two saves of its progress. */
export const SYNC_LEASE_SECONDS = 60;
/** Pages one round reads at most (the rest in the next round, from the saved cursor). */
export const PAGES_PER_ROUND = 20;
/**
 * Pages one run reads at most (500,000 records): a CRM address answering without end (an
 * ActiveCampaign URL is the tenant's to choose) stops there, the run recorded as failed.
 */
export const MAX_PAGES_PER_RUN = 5000;
/** An incremental run asks for changes from this long before the previous run started (clock skew). */
const SINCE_OVERLAP_MS = 60_000;

const NAMES: Record<string, string> = {
  hubspot: 'HubSpot',
  pipedrive: 'Pipedrive',
  activecampaign: 'ActiveCampaign',
};

/** The actor of contacts a sync writes. */
export const syncActor = (row: IntegrationRow): Actor => ({
  id: row.id,
  name: NAMES[row.type] ?? row.type,
  source: 'integration',
  subSource: row.type,
});

const add = (run: Record<string, number>, key: string, n = 1) => {
  run[key] = (run[key] ?? 0) + n;
};

/**
 * Writes a page of CRM people as contacts: people without a usable phone are counted
 * (`withoutPhone`), not imported; of several people with one phone the lowest CRM id is kept and
 * the others counted (`duplicatePhone`), within the page and against the id a contact holds.
 * Answers the contact id of each person imported.
 */
export async function importPeople(
  db: Db,
  row: IntegrationRow,
  people: CrmPerson[],
  run: Record<string, number>,
  country: string | undefined,
): Promise<Map<number, string>> {
  add(run, 'read', people.length);
  const byMobile = new Map<string, CrmContactRecord>();
  for (const p of people) {
    const parsed = p.phone ? parseMobile(p.phone, readingCountry(null, country)) : undefined;
    if (!parsed?.valid) {
      add(run, 'withoutPhone');
      continue;
    }
    const rec: CrmContactRecord = {
      crm_id: p.id,
      event_id: newId(),
      contact_id: newId(),
      first_name: p.firstName ?? null,
      last_name: p.lastName ?? null,
      email: p.email ?? null,
      mobile_number: parsed.number,
      mobile_country: parsed.country,
      mobile_valid: parsed.valid,
      mobile_line_type: parsed.lineType,
    };
    const held = byMobile.get(parsed.number);
    if (held && held.crm_id === p.id) continue;
    if (held) add(run, 'duplicatePhone');
    if (!held || p.id < held.crm_id) byMobile.set(parsed.number, rec);
  }
  if (byMobile.size === 0) return new Map();
  const out = await upsertCrmContacts(db, row.account_id, row.type, [...byMobile.values()], syncActor(row));
  add(run, 'created', out.created);
  add(run, 'updated', out.updated);
  add(run, 'unchanged', out.unchanged);
  add(run, 'duplicatePhone', out.duplicates.length);
  return out.contactIds;
}

/**
 * The next page of people: changed ones in an incremental run, else everyone. A CRM that refuses the
 * changed-since query (404 or 400: an endpoint or filter it does not have) is read in full for the
 * rest of this run (`fullRun`), which is slower but the same in the end.
 */
async function peoplePage(client: CrmClient, state: SyncState) {
  if (state.mode !== 'incremental' || !state.since || state.fullRun) return client.allPeople(state.cursor);
  try {
    return await client.changedPeople(state.since, state.cursor);
  } catch (err) {
    if (!(err instanceof CrmError) || (err.kind !== 'gone' && err.kind !== 'invalid')) throw err;
    state.fullRun = true;
    state.cursor = undefined;
    return client.allPeople();
  }
}

/**
 * Runs (or resumes) a connection's sync for up to PAGES_PER_ROUND pages: the people (all of them
 * the first time, then those changed since the previous run), then each CRM list into its Sparrow
 * list. The place reached is saved after every page, so a worker killed mid-run is resumed from
 * there by the next one. Answers true when the run finished.
 */
export async function syncPeople(db: Db, row: IntegrationRow, client: CrmClient): Promise<boolean> {
  const state: SyncState = { ...row.sync_state };
  const settings = row.settings ?? {};
  const lists = settings.lists ?? [];
  if (!state.runStartedAt) {
    state.runStartedAt = new Date().toISOString();
    state.phase = settings.syncContacts === false ? 'lists' : 'people';
    state.listIndex = 0;
    state.cursor = undefined;
    state.fullRun = undefined;
    state.pages = 0;
    state.run = {};
    if (state.mode === 'incremental' && state.since)
      state.since = new Date(Date.parse(state.since) - SINCE_OVERLAP_MS).toISOString();
  }
  state.run ??= {};
  const run = state.run;
  const country = await accountHomeCountry(db, row.account_id);
  for (let pages = 0; pages < PAGES_PER_ROUND; pages++) {
    state.pages = (state.pages ?? 0) + 1;
    if (state.pages > MAX_PAGES_PER_RUN) {
      // Started afresh next time (after the failure's backoff).
      await saveProgress(
        db,
        row.account_id,
        row.id,
        { mode: state.mode, since: state.since },
        SYNC_LEASE_SECONDS,
      );
      throw new CrmError(
        'invalid',
        `the CRM answered more than ${MAX_PAGES_PER_RUN} pages in one sync: stopped`,
      );
    }
    if (state.phase === 'people') {
      const page = await peoplePage(client, state);
      await importPeople(db, row, page.people, run, country);
      state.cursor = page.next;
      if (!page.next) {
        state.phase = 'lists';
        state.listIndex = 0;
      }
    } else {
      const index = state.listIndex ?? 0;
      const mapping = lists[index];
      if (!mapping) {
        // Done: the next run asks for changes since this one started.
        const next: SyncState = { mode: 'incremental', since: state.runStartedAt };
        await finishSync(
          db,
          row.account_id,
          row.id,
          next,
          run,
          (settings.intervalMinutes ?? DEFAULT_INTERVAL_MINUTES) * 60_000,
        );
        return true;
      }
      const m = await client.listMembers(mapping.crmListId, state.cursor);
      if (m.people.length > 0) await importPeople(db, row, m.people, run, country);
      const contacts = await contactsByCrmIds(db, row.account_id, row.type, m.ids);
      add(run, 'listMembers', contacts.length);
      await addListMembers(
        db,
        row.account_id,
        mapping.listId,
        contacts.map((c) => c.id),
      );
      state.cursor = m.next;
      if (!m.next) {
        await touchListSource(db, row.account_id, mapping.listId, {
          id: mapping.crmListId,
          integration: row.type,
          lastSynced: new Date().toISOString(),
        });
        state.listIndex = index + 1;
      }
    }
    await saveProgress(db, row.account_id, row.id, state, SYNC_LEASE_SECONDS);
  }
  return false;
}
