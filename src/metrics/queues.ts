/**
 * The queue gauges: one read-only statement at scrape time, bounded by a short statement timeout
 * (SET LOCAL, so it holds through a transaction pooler too). Every count runs on a partial index
 * of due or waiting rows, so its cost follows the backlog, not the table.
 */
import { type Db, withTx } from '../db/client.ts';

/** Longest the queue statement may run before the scrape answers without the queue gauges. */
export const QUEUE_SCRAPE_TIMEOUT_MS = 2_000;

export interface QueueReading {
  queue: string;
  depth: number;
  ageSeconds: number;
}

// Each queue: the table it reads, and its SELECT of queue, depth, oldest (the time the oldest row
// has been waiting since). A table this database does not have (yet, or any more) is left out.
const PARTS: [table: string, sql: string][] = [
  [
    'messages',
    `SELECT 'messages_queued' AS queue, count(*) AS depth, min(created_at) AS oldest
     FROM messages WHERE status = 'queued'`,
  ],
  ['messages', `SELECT 'messages_sending', count(*), min(updated_at) FROM messages WHERE status = 'sending'`],
  ['dispatch_inflight', `SELECT 'dispatch_inflight', count(*), min(started_at) FROM dispatch_inflight`],
  ['early_receipts', `SELECT 'early_receipts', count(*), min(received_at) FROM early_receipts`],
  ['webhook_event_queue', `SELECT 'webhook_fanout', count(*), NULL FROM webhook_event_queue`],
  [
    'webhook_deliveries',
    `SELECT 'webhook_deliveries', count(*), min(next_attempt_at) FILTER (WHERE next_attempt_at <= now())
     FROM webhook_deliveries WHERE status = 'pending'`,
  ],
  [
    'send_jobs',
    `SELECT 'scheduled_sends_due', count(*), min(send_at) FROM send_jobs
     WHERE status = 'scheduled' AND send_at <= now()`,
  ],
  [
    'campaigns',
    `SELECT 'campaigns_due', count(*), min(next_execution) FROM campaigns
     WHERE next_execution IS NOT NULL AND paused_at IS NULL AND next_execution <= now()`,
  ],
  [
    'workflow_runs',
    `SELECT 'workflow_runs_due', count(*), min(due_at) FROM workflow_runs
     WHERE status IN ('active', 'waiting') AND due_at <= now()`,
  ],
  [
    'drip_executions',
    `SELECT 'drip_executions_due', count(*), min(due_at) FROM drip_executions
     WHERE status = 'active' AND due_at <= now()`,
  ],
  [
    'meetings',
    `SELECT 'meeting_reminders_due', count(*), min(reminder_due_at) FROM meetings
     WHERE reminder_due_at IS NOT NULL AND reminder_sent_at IS NULL AND status = 'upcoming'
       AND reminder_due_at <= now()`,
  ],
];

/** The queue statement for a database, built once from the tables it has. */
const statements = new WeakMap<Db, Promise<string>>();

function statementFor(db: Db): Promise<string> {
  let sql = statements.get(db);
  if (!sql) {
    const tables = [...new Set(PARTS.map(([t]) => t))];
    sql = db
      .query<{ t: string }>('SELECT t FROM unnest($1::text[]) AS t WHERE to_regclass(t) IS NOT NULL', [
        tables,
      ])
      .then(({ rows }) => {
        const present = new Set(rows.map((r) => r.t));
        return PARTS.filter(([t]) => present.has(t))
          .map(([, part]) => part)
          .join('\nUNION ALL\n');
      });
    sql.catch(() => statements.delete(db));
    statements.set(db, sql);
  }
  return sql;
}

/** Reads every queue's depth and oldest age; throws when the database is slow or away. */
export async function readQueues(db: Db, timeoutMs = QUEUE_SCRAPE_TIMEOUT_MS): Promise<QueueReading[]> {
  const SQL = await statementFor(db);
  return withTx(db, async (tx) => {
    await tx.query(`SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`);
    const { rows } = await tx.query<{ queue: string; depth: number; age: number | null }>(
      `SELECT queue, depth::float8 AS depth,
              coalesce(greatest(0, extract(epoch FROM now() - oldest)), 0)::float8 AS age
         FROM (${SQL}) q`,
    );
    return rows.map((r) => ({ queue: r.queue, depth: Number(r.depth), ageSeconds: Number(r.age ?? 0) }));
  });
}
