import type { Queryable } from '../client.ts';

/** A send job row: one bulk send (its counts and charge). */
export interface SendJobRow {
  account_id: string;
  id: string;
  campaign_id: string | null;
  /** queued (messages waiting) → sending → completed (none left to dispatch). */
  status: string;
  submitted: number;
  queued: number;
  failures: number;
  /** Messages not yet sent or failed. */
  pending: number;
  price: number;
  invalid: unknown[];
  created_at: Date;
  created_by: Record<string, unknown>;
}

export async function insertSendJob(
  db: Queryable,
  accountId: string,
  j: { id: string; campaignId: string | null; template: string; by: object },
): Promise<void> {
  await db.query(
    `INSERT INTO send_jobs (account_id, id, campaign_id, status, template, created_by)
     VALUES ($1, $2, $3, 'queued', $4, $5)`,
    [accountId, j.id, j.campaignId, j.template, j.by],
  );
}

/** Records what a send submitted, queued, failed and charged. */
export async function setSendJobCounts(
  db: Queryable,
  accountId: string,
  jobId: string,
  c: {
    submitted: number;
    queued: number;
    failures: number;
    price: number;
    invalid: unknown[];
    /** The holds of its queued messages (quiet hours), null for none: one dispatch cursor each. */
    holds: (Date | null)[];
  },
): Promise<SendJobRow> {
  const { rows } = await db.query<SendJobRow>(
    // A job with queued (bulk) messages is opened for range dispatch: one cursor per hold.
    `WITH open AS (
       INSERT INTO dispatch_cursors (account_id, job_id, not_before)
       SELECT DISTINCT $1::uuid, $2::uuid, coalesce(h, '-infinity') FROM unnest($8::timestamptz[]) AS h WHERE $4 > 0
     )
     UPDATE send_jobs SET submitted = $3, queued = $4, pending = $4, failures = $5, price = $6, invalid = $7,
            status = CASE WHEN $4 > 0 THEN 'queued' ELSE 'completed' END
     WHERE account_id = $1 AND id = $2 RETURNING *`,
    [
      accountId,
      jobId,
      c.submitted,
      c.queued,
      c.failures,
      c.price,
      JSON.stringify(c.invalid),
      c.holds.length > 0 ? c.holds : [null],
    ],
  );
  return rows[0];
}

export async function findSendJob(
  db: Queryable,
  accountId: string,
  jobId: string,
): Promise<SendJobRow | undefined> {
  const { rows } = await db.query<SendJobRow>('SELECT * FROM send_jobs WHERE account_id = $1 AND id = $2', [
    accountId,
    jobId,
  ]);
  return rows[0];
}
