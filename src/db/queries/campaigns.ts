import type { Queryable } from '../client.ts';
import type { QueueSpec } from './claim.ts';
import { assignColumns, type ColumnMap } from './columns.ts';
import type { AttributeCondition } from './lists.ts';
import type { SendJobRow } from './send-jobs.ts';

/** A Media item of a campaign. */
export interface CampaignMedia {
  url: string;
  type?: string;
  name?: string;
  filename?: string;
}

/** Recipient conditions beside the list: all must hold. */
export interface CampaignFilters {
  attributes?: AttributeCondition[];
  tags?: { tag: string; visible?: boolean }[];
  /** Free text narrowing the recipients (a smart list's `q`); null or absent: none. */
  q?: string | null;
  /** Every contact (explicit; never beside conditions or a list). */
  all?: boolean;
  /** Contacts named by id (the published `filters.contacts`), sent to beside the list and conditions. */
  contacts?: string[];
}

/** A campaign as stored, with its last send job (joined) when it has one. */
export interface CampaignRow {
  account_id: string;
  id: string;
  name: string;
  description: string | null;
  field_mappings: unknown[];
  list_id: string | null;
  filters: CampaignFilters;
  media: CampaignMedia[];
  group_id: string | null;
  schedule: Record<string, unknown> | null;
  reporting: Record<string, unknown> | null;
  template: string;
  trigger_code: 'M' | 'S' | 'FU';
  next_execution: Date | null;
  paused_at: Date | null;
  claimed_until: Date | null;
  claim_token: string | null;
  attempts: number;
  run_started_at: Date | null;
  last_job_id: string | null;
  last_error: { code: string; description: string } | null;
  created_at: Date;
  created_by: Record<string, unknown>;
  updated_at: Date;
  updated_by: Record<string, unknown>;
  /** The row of last_job_id (JSON: its timestamps are strings). */
  last_job: (Omit<SendJobRow, 'created_at'> & { created_at: string }) | null;
}

/** The writable fields of a campaign; undefined = not given, null = cleared. */
export interface CampaignFields {
  name?: string;
  description?: string | null;
  fieldMappings?: unknown[];
  listId?: string | null;
  filters?: CampaignFilters;
  media?: CampaignMedia[];
  groupId?: string | null;
  schedule?: Record<string, unknown> | null;
  reporting?: Record<string, unknown> | null;
  template?: string;
  triggerCode?: 'M' | 'S' | 'FU';
  nextExecution?: Date | null;
  /** true: paused (since now, unless already paused); false: running. */
  paused?: boolean;
}

// `merge`: the given keys replace those stored, the others stay (filters.attributes / filters.tags / filters.q).
const COLUMNS: ColumnMap<Omit<CampaignFields, 'paused'>> = {
  name: ['name', 'plain'],
  description: ['description', 'plain'],
  fieldMappings: ['field_mappings', 'json'],
  listId: ['list_id', 'plain'],
  filters: ['filters', 'merge'],
  media: ['media', 'json'],
  groupId: ['group_id', 'plain'],
  schedule: ['schedule', 'json'],
  reporting: ['reporting', 'json'],
  template: ['template', 'plain'],
  triggerCode: ['trigger_code', 'plain'],
  nextExecution: ['next_execution', 'plain'],
};

const SELECT = `SELECT c.*, to_jsonb(j) AS last_job FROM campaigns c
  LEFT JOIN send_jobs j ON j.account_id = c.account_id AND j.id = c.last_job_id`;

export async function insertCampaign(
  db: Queryable,
  accountId: string,
  c: CampaignFields & { id: string; name: string; by: object; claimForSeconds?: number },
): Promise<void> {
  const params: unknown[] = [accountId, c.id, c.by];
  const { cols, vals } = assignColumns(COLUMNS, c, params, false);
  if (c.paused) {
    cols.push('paused_at');
    vals.push('now()');
  }
  if (c.claimForSeconds !== undefined) {
    // Due and claimed at birth: the caller runs it now, and the scheduler takes over if that caller dies.
    params.push(c.claimForSeconds);
    cols.push('next_execution', 'claimed_until', 'run_started_at');
    vals.push('now()', `now() + make_interval(secs => $${params.length})`, 'now()');
  }
  await db.query(
    `INSERT INTO campaigns (account_id, id, created_by, updated_by, ${cols.join(', ')})
     VALUES ($1, $2, $3, $3, ${vals.join(', ')})`,
    params,
  );
}

export async function findCampaign(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<CampaignRow | undefined> {
  const { rows } = await db.query<CampaignRow>(`${SELECT} WHERE c.account_id = $1 AND c.id = $2`, [
    accountId,
    id,
  ]);
  return rows[0];
}

/** Sets the given fields only; answers false when the account has no such campaign. */
export async function updateCampaign(
  db: Queryable,
  accountId: string,
  id: string,
  f: CampaignFields,
  by: object,
): Promise<boolean> {
  const params: unknown[] = [accountId, id, by];
  const { cols, vals } = assignColumns(COLUMNS, f, params, true);
  const sets = cols.map((c, i) => `${c} = ${vals[i]}`);
  if (f.paused === true) sets.push('paused_at = coalesce(paused_at, now())');
  if (f.paused === false) sets.push('paused_at = NULL');
  const { rowCount } = await db.query(
    `UPDATE campaigns SET ${[...sets, 'updated_at = now()', 'updated_by = $3'].join(', ')}
     WHERE account_id = $1 AND id = $2`,
    params,
  );
  return (rowCount ?? 0) > 0;
}

export async function deleteCampaign(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM campaigns WHERE account_id = $1 AND id = $2', [
    accountId,
    id,
  ]);
  return (rowCount ?? 0) > 0;
}

/** One page of the account's campaigns, newest first (optionally by partial name), with the total. */
export async function listCampaigns(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
): Promise<{ rows: CampaignRow[]; total: number }> {
  const params: unknown[] = [accountId];
  let cond = 'c.account_id = $1';
  if (filter.name) {
    // The name is matched literally: escape LIKE's wildcards and its escape character.
    params.push(`%${filter.name.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
    cond += ` AND c.name ILIKE $${params.length}`;
  }
  const [items, count] = await Promise.all([
    db.query<CampaignRow>(
      `${SELECT} WHERE ${cond} ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM campaigns c WHERE ${cond}`, params),
  ]);
  return { rows: items.rows, total: count.rows[0].n };
}

/**
 * The queue of due campaign runs, leased with a claim token. run_started_at is kept from an earlier
 * claim (expired, or retried after a failure) so the run can tell whether that claim already sent.
 */
export const CAMPAIGN_QUEUE: QueueSpec = {
  table: 'campaigns',
  key: ['account_id', 'id'],
  due: 'q.next_execution <= now() AND q.paused_at IS NULL',
  order: 'q.next_execution',
  lease: { until: 'claimed_until', token: 'claim_token' },
  attempts: 'attempts',
  retryAt: 'next_execution',
};

/** What a campaign claim adds: the run's start, kept from an earlier claim of the same run. */
export const CAMPAIGN_CLAIM_SET = 'run_started_at = coalesce(t.run_started_at, now())';

/** The send job a campaign's run created since `since`, if it committed one. */
export async function campaignJobSince(
  db: Queryable,
  accountId: string,
  campaignId: string,
  since: Date,
): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM send_jobs WHERE account_id = $1 AND campaign_id = $2 AND created_at >= $3
     ORDER BY created_at LIMIT 1`,
    [accountId, campaignId, since],
  );
  return rows[0]?.id;
}

/**
 * Ends a run: records its job (or its expected failure), releases the lease and clears a
 * next_execution that has come (a later one set meanwhile stays).
 */
export async function finishCampaignRun(
  db: Queryable,
  accountId: string,
  campaignId: string,
  outcome: { jobId: string } | { error: { code: string; description: string } },
  /** The next run of a recurring campaign (null: none, as for a one-shot run). */
  next: Date | null = null,
  /** The claim's token (null for a quick campaign's own claim): a stale claim changes nothing. */
  token: string | null = null,
): Promise<void> {
  const jobId = 'jobId' in outcome ? outcome.jobId : null;
  const error = 'error' in outcome ? JSON.stringify(outcome.error) : null;
  await db.query(
    `UPDATE campaigns SET last_job_id = coalesce($3, last_job_id), last_error = $4::jsonb,
            claimed_until = NULL, claim_token = NULL, attempts = 0, run_started_at = NULL,
            next_execution = CASE WHEN $5::timestamptz IS NOT NULL THEN $5::timestamptz
                                  WHEN next_execution <= now() THEN NULL ELSE next_execution END
     WHERE account_id = $1 AND id = $2 AND claim_token IS NOT DISTINCT FROM $6::uuid`,
    [accountId, campaignId, jobId, error, next, token],
  );
}
