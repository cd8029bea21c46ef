import type { Queryable } from '../client.ts';

/**
 * The shared way a worker takes items off a queue table. Most `FOR UPDATE SKIP LOCKED` claims of
 * the service are written here; the dispatcher's (dispatch-ranges.ts, message-dispatch.ts,
 * dispatch-inflight.ts: docs/architecture.md says why), message expiry's (message-expiry.ts), early
 * receipts' (message-receipts.ts) and the CRM integrations' (integration-sync.ts,
 * integration-pushes.ts) write their own.
 * A queue is a table whose due rows workers share:
 *
 * - **locked** queues (no `lease`): the row lock of the caller's transaction is the claim; the
 *   item's work commits with it or not at all (bulk contact chunks, meeting reminders, purges,
 *   workflow causes, the webhook fan-out).
 * - **leased** queues (`lease`): the claim commits a lease (`until`) and a claim token, the work
 *   runs in later transactions, and only the holder of the token may complete, release or retry
 *   the item; a worker that dies leaves the lease to run out and the item comes back.
 *
 * A failed attempt of a leased item is retried after an exponential backoff (`retryClaim`) and,
 * with `attempts`, given up after a maximum (the worker helper in `domain/claim.ts` decides).
 * Table, column and condition strings are the code's own, never input.
 */
export interface QueueSpec {
  /** The queue table. */
  table: string;
  /** Its key columns (the claim joins back on them). */
  key: readonly string[];
  /** The SQL condition that makes a row due (over the table's columns, alias `q`). */
  due: string;
  /** The order items are claimed in (oldest due first), over alias `q`; none: any order. */
  order?: string;
  /** Leased queue: the lease's expiry column and (optional) the claim token column. */
  lease?: {
    until: string;
    token?: string;
    /**
     * The lease is the due column itself pushed into the future (no separate "free" test):
     * a claimed row is simply not due until its lease passes.
     */
    inDue?: boolean;
  };
  /** The attempts counter, counted up by every claim. */
  attempts?: string;
  /** The column a retry pushes out by the backoff (the row is due again then). */
  retryAt?: string;
}

const keyList = (q: QueueSpec, alias: string) => q.key.map((k) => `${alias}.${k}`).join(', ');
const keyJoin = (q: QueueSpec, a: string, b: string) =>
  q.key.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');

/**
 * The statement that locks due rows: `SELECT <columns> FROM <table> q [<join>] WHERE <due> [AND
 * lease free] [AND <where>] ORDER BY <order> LIMIT <limit> FOR UPDATE OF q SKIP LOCKED`. `limit`
 * and `where` are SQL (placeholders of the caller's statement); `order: ''` and no `limit` lock
 * every due row the `join` selects (a set chosen beforehand). Rows other workers hold are
 * skipped, never waited for.
 */
export function lockDueSql(
  q: QueueSpec,
  o: { columns?: string; limit?: string; where?: string; join?: string; order?: string },
): string {
  const free =
    q.lease && !q.lease.inDue ? ` AND (q.${q.lease.until} IS NULL OR q.${q.lease.until} < now())` : '';
  const extra = o.where ? ` AND (${o.where})` : '';
  const order = o.order ?? q.order;
  return `SELECT ${o.columns ?? keyList(q, 'q')} FROM ${q.table} q${o.join ? ` ${o.join}` : ''}
     WHERE (${q.due})${free}${extra}
     ${order ? `ORDER BY ${order} ` : ''}${o.limit ? `LIMIT ${o.limit} ` : ''}FOR UPDATE OF q SKIP LOCKED`;
}

/**
 * The statement that claims up to $1 due rows of a leased queue: locks them (lockDueSql, CTE
 * `due`), sets the lease to now() + $2 seconds, stamps the claim token $3 and counts an attempt
 * (CTE `claimed`), in one statement. `set` adds assignments (over alias `t`), `where` narrows the
 * due rows (its placeholders follow $3), `returning` defaults to the whole row and `select` (the
 * final SELECT over `claimed`) to all of it.
 */
export function claimSql(
  q: QueueSpec,
  o: { set?: string; returning?: string; where?: string; select?: string } = {},
): string {
  if (!q.lease?.token) throw new Error(`queue ${q.table} has no lease with a claim token`);
  const sets = [
    `${q.lease.until} = now() + make_interval(secs => $2::float8)`,
    `${q.lease.token} = $3::uuid`,
  ];
  if (q.attempts) sets.push(`${q.attempts} = t.${q.attempts} + 1`);
  if (o.set) sets.push(o.set);
  return `WITH due AS (${lockDueSql(q, { limit: '$1', where: o.where })}),
     claimed AS (
       UPDATE ${q.table} t SET ${sets.join(', ')}
         FROM due WHERE ${keyJoin(q, 't', 'due')}
       RETURNING ${o.returning ?? 't.*'})
     ${o.select ?? 'SELECT * FROM claimed'}`;
}

/** Locks up to `limit` due rows for the caller's transaction (a locked queue) and answers them. */
export async function lockDue<T>(
  tx: Queryable,
  q: QueueSpec,
  limit: number,
  o: { columns?: string; where?: string; params?: unknown[] } = {},
): Promise<T[]> {
  const params = o.params ?? [];
  const { rows } = await tx.query<T & object>(
    lockDueSql(q, { columns: o.columns ?? 'q.*', limit: `$${params.length + 1}`, where: o.where }),
    [...params, limit],
  );
  return rows;
}

/** Claims up to `limit` due rows of a leased queue for `leaseSeconds` under `token` (see claimSql). */
export async function claimDue<T>(
  db: Queryable,
  q: QueueSpec,
  limit: number,
  leaseSeconds: number,
  token: string,
  o: { set?: string; returning?: string; where?: string; select?: string; params?: unknown[] } = {},
): Promise<T[]> {
  const { rows } = await db.query<T & object>(claimSql(q, o), [
    limit,
    leaseSeconds,
    token,
    ...(o.params ?? []),
  ]);
  return rows;
}

/** A claimed item: its key values in the order of QueueSpec.key, and the claim's token. */
export interface Claim {
  key: readonly unknown[];
  token: string;
}

function tokenWhere(q: QueueSpec, offset: number): string {
  const keys = q.key.map((k, i) => `${k} = $${offset + i}`).join(' AND ');
  if (!q.lease?.token) throw new Error(`queue ${q.table} has no claim token`);
  return `${keys} AND ${q.lease.token} = $${offset + q.key.length}`;
}

/**
 * Ends a claim: applies `set` (assignments; the caller's parameters follow the key and token) and
 * clears the lease, only while `token` still holds the item. Answers false when it does not (the
 * lease ran out and another worker claimed it): that worker's claim stands.
 */
export async function completeClaim(
  db: Queryable,
  q: QueueSpec,
  c: Claim,
  set?: string,
  params: unknown[] = [],
  /** `set` assigns the lease column itself. */
  setsUntil = false,
): Promise<boolean> {
  if (!q.lease?.token) throw new Error(`queue ${q.table} has no claim token`);
  const sets = [`${q.lease.token} = NULL`];
  if (!q.lease.inDue && !setsUntil) sets.push(`${q.lease.until} = NULL`);
  if (set) sets.push(set);
  const n = q.key.length + 2;
  const sql = `UPDATE ${q.table} SET ${sets.join(', ')} WHERE ${tokenWhere(q, 1)}`.replace(
    /\$p(\d+)/g,
    (_, i) => `$${n + Number(i) - 1}`,
  );
  const { rowCount } = await db.query(sql, [...c.key, c.token, ...params]);
  return (rowCount ?? 0) > 0;
}

/**
 * Hands a claimed item back untried: due again now, its attempt not counted. Answers false when
 * the token no longer holds it.
 */
export async function releaseClaim(db: Queryable, q: QueueSpec, c: Claim): Promise<boolean> {
  const sets: string[] = [];
  if (q.attempts) sets.push(`${q.attempts} = greatest(${q.attempts} - 1, 0)`);
  if (q.lease?.inDue) sets.push(`${q.lease.until} = now()`);
  return completeClaim(db, q, c, sets.join(', ') || undefined);
}

/**
 * Records a failed attempt: the item is due again after `delayMs` (the backoff) and its token
 * cleared. The backoff is written to `retryAt`, or else to the lease column (the item stays out of
 * reach until then). Answers false when the token no longer holds it.
 */
export async function retryClaim(db: Queryable, q: QueueSpec, c: Claim, delayMs: number): Promise<boolean> {
  if (!q.lease) throw new Error(`queue ${q.table} has no lease`);
  const column = q.retryAt ?? q.lease.until;
  const set = `${column} = now() + $p1::float8 * interval '1 millisecond'`;
  return completeClaim(db, q, c, set, [delayMs], column === q.lease.until);
}

/** Whether `token` still holds the item (for work that runs long after its claim). */
export async function holdsClaim(db: Queryable, q: QueueSpec, c: Claim): Promise<boolean> {
  const { rowCount } = await db.query(`SELECT 1 FROM ${q.table} WHERE ${tokenWhere(q, 1)}`, [
    ...c.key,
    c.token,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * Records a failed attempt at an item of a locked queue (the caller's transaction holds its row):
 * counts the attempt and makes it due again after `delayMs`.
 */
export async function retryLocked(
  tx: Queryable,
  q: QueueSpec,
  key: readonly unknown[],
  delayMs: number,
): Promise<void> {
  const sets: string[] = [];
  if (q.attempts) sets.push(`${q.attempts} = ${q.attempts} + 1`);
  if (q.retryAt) sets.push(`${q.retryAt} = now() + $${q.key.length + 1}::float8 * interval '1 millisecond'`);
  if (sets.length === 0) return;
  const keys = q.key.map((k, i) => `${k} = $${i + 1}`).join(' AND ');
  await tx.query(
    `UPDATE ${q.table} SET ${sets.join(', ')} WHERE ${keys}`,
    q.retryAt ? [...key, delayMs] : [...key],
  );
}
