/**
 * `npm run bench:send`: seeds an account with N contacts (set-based), sends ONE templated message
 * to all of them with POST …/messages (a tag filter), and dispatches through the simulator in this
 * process until every message is `sent`. Prints the API time to accept, end-to-end messages/s, peak
 * RSS of this process (the embedded PostgreSQL is a separate process, not counted), and in the same
 * run the raw ceiling: how long PostgreSQL itself takes to INSERT … SELECT N message-shaped rows
 * into a scratch table and UPDATE them all set-based, and our ratio to it.
 * Then the way integrations send (NAMED=mobiles,ids): the N recipients named in calls of BATCH
 * (2,000), CONCURRENCY (4) at once, as new mobiles and as the seeded contacts' ids; each mode's
 * accept rate is printed beside the filter's, with its end-to-end rate.
 * Last, with no dispatcher running, what the accept alone costs in CPU: FLOOR (10,000) new mobiles
 * named in calls of BATCH, one at a time; PostgreSQL's processes (from /proc, when its data
 * directory is on this machine) and this one, per recipient: the floor of a named-mobile send.
 * With OLD=M, the account first holds M old messages (final, spread over the past twelve months, in
 * their month partitions), as a database that has been sending for a year does (`bench:growth`).
 * Env: N (default 100000), NAMED, BATCH, CONCURRENCY, OLD, DATABASE_URL (else embedded PostgreSQL).
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool, withBulkTx } from '../src/db/client.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { buildApiApp } from '../src/http/app.ts';
import { dispatch } from '../src/workers/dispatch.ts';
import { startWorkers } from '../src/workers/index.ts';
import { postmasterPid, treeCpuSeconds } from './proc-cpu.ts';
import { benchDatabase, fmt } from './support.ts';

const N = Number(process.env.N ?? 100_000);
/** Named-recipient sends (NAMED=mobiles,ids; `none` skips them): BATCH a call, CONCURRENCY calls at once. */
const NAMED = (process.env.NAMED ?? 'mobiles,ids').split(',').filter((k) => k === 'mobiles' || k === 'ids');
const BATCH = Number(process.env.BATCH ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const OLD = Number(process.env.OLD ?? 0);
const FLOOR = Number(process.env.FLOOR ?? 10_000);
const THROUGHPUT = 1_000_000;
const TEMPLATE = 'Hi {{{firstName}}}, your {{{plan}}} offer ends Sunday. Reply STOP to opt out.';

let peakRss = process.memoryUsage.rss();
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 20);

const database = await benchDatabase();
const config = {
  ...loadConfig({ RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }),
  databaseUrl: database.url,
};
// The service's timeouts, as `npm start` has them; the bench's own seeding and raw-ceiling
// statements run in bulk transactions (`bulk`), since at N=1,000,000 they pass a request's 30 s.
const db = createPool(database.url, 10, config.db);
const bulk = (sql: string, params: unknown[]) => withBulkTx(db, (tx) => tx.query(sql, params));
const ctx = createContext(config, db);
let workers: { stop: () => Promise<void> } | undefined;

/** Waits until every message of these jobs has left the queue. */
async function jobsDone(accountId: string, jobIds: string[]): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ pending: number }>(
      'SELECT coalesce(sum(pending), 0)::int AS pending FROM send_jobs WHERE account_id = $1 AND id = ANY($2::uuid[])',
      [accountId, jobIds],
    );
    if (rows[0].pending === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One POST …/messages naming its recipients; answers the job id. */
async function sendNamed(api: FastifyInstance, accountId: string, token: string, contacts: object[]) {
  const res = await api.inject({
    method: 'POST',
    url: `/v1/accounts/${accountId}/messages`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ contacts, template: TEMPLATE }),
  });
  if (res.statusCode !== 200) throw new Error(`named send answered ${res.statusCode}: ${res.body}`);
  return JSON.parse(res.body).data.jobId as string;
}

/**
 * The way integrations send: N recipients named in the request, BATCH a call, CONCURRENCY calls at
 * once. `mobiles`: N numbers no contact has yet (each call creates its contacts); `ids`: the N
 * seeded contacts by id. Each is dispatched before the next starts.
 */
async function namedSends(api: FastifyInstance, accountId: string, token: string) {
  const out: { kind: string; calls: number; acceptMs: number; totalMs: number }[] = [];
  // The seeded contacts' ids, a call's worth at a time in id order, up to the last seeded one (the
  // `mobiles` mode's contacts come after it). Read all at once, a million of them were a transient
  // ~110 MB in this process, whose peak RSS the bench reports, even with NAMED=none.
  const { rows: last } = await db.query<{ id: string }>(
    'SELECT c.id FROM contacts c WHERE c.account_id = $1 ORDER BY c.id DESC LIMIT 1',
    [accountId],
  );
  let after = '00000000-0000-0000-0000-000000000000';
  let paging: Promise<unknown> = Promise.resolve();
  const nextSeeded = (): Promise<string[]> => {
    const page = paging.then(async () => {
      const { rows } = await db.query<{ id: string }>(
        'SELECT c.id FROM contacts c WHERE c.account_id = $1 AND c.id > $2 AND c.id <= $3 ORDER BY c.id LIMIT $4',
        [accountId, after, last[0].id, BATCH],
      );
      if (rows.length > 0) after = rows[rows.length - 1].id;
      return rows.map((r) => r.id);
    });
    paging = page.catch(() => {});
    return page;
  };
  for (const kind of NAMED) {
    const calls = Math.ceil(N / BATCH);
    const jobIds: string[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, calls) }, async () => {
        while (next < calls) {
          const b = next++;
          const contacts: object[] = [];
          if (kind === 'ids') for (const id of await nextSeeded()) contacts.push({ id });
          else
            for (let i = b * BATCH; i < Math.min(N, (b + 1) * BATCH); i++)
              contacts.push({ mobile: { number: `+1202${2_000_000 + i}` } });
          jobIds.push(await sendNamed(api, accountId, token, contacts));
        }
      }),
    );
    const acceptMs = performance.now() - t0;
    await jobsDone(accountId, jobIds);
    out.push({ kind, calls, acceptMs, totalMs: performance.now() - t0 });
  }
  return out;
}

/**
 * CPU per recipient of accepting FLOOR new mobiles, BATCH a call, one call at a time, with no
 * dispatcher running: PostgreSQL's (undefined when its processes are not on this machine) and this
 * process's (the API in-process: routing, validation, parsing the numbers, the statements).
 */
async function acceptCost(api: FastifyInstance, accountId: string, token: string) {
  const pg = await postmasterPid(db);
  const pgBefore = pg === undefined ? 0 : treeCpuSeconds([pg]);
  const nodeBefore = process.cpuUsage();
  for (let from = 0; from < FLOOR; from += BATCH) {
    const contacts = [];
    for (let i = from; i < Math.min(FLOOR, from + BATCH); i++)
      contacts.push({ mobile: { number: `+1203${2_000_000 + i}` } });
    await sendNamed(api, accountId, token, contacts);
  }
  const node = process.cpuUsage(nodeBefore);
  return {
    pgUs: pg === undefined ? undefined : ((treeCpuSeconds([pg]) - pgBefore) * 1e6) / FLOOR,
    nodeUs: (node.user + node.system) / FLOOR,
  };
}

try {
  const { account } = await createAccount(db, { name: 'bench', balance: N * 3 + FLOOR * 2 });
  const { client } = await createClient(db, account.id);
  const token = await ctx.tokens.issue(
    { id: client.id, name: client.name, accountId: account.id },
    client.scopes,
  );

  let t = performance.now();
  await bulk(
    `INSERT INTO contacts (account_id, id, first_name, last_name, mobile_number, mobile_country, mobile_valid,
                           mobile_line_type, attributes, tags)
     SELECT $1, sparrow_uuidv7(), 'Name' || i, 'Bench', '+1201' || lpad(i::text, 7, '0'), 'US', true, 'mobile',
            jsonb_build_object('plan', CASE WHEN i % 2 = 0 THEN 'gold' ELSE 'silver' END), '[{"tag": "bench", "visible": true}]'
     FROM generate_series(1, $2) AS i`,
    [account.id, N],
  );
  await bulk('ANALYZE contacts', []);
  console.log(`seeded ${fmt(N)} contacts in ${fmt(performance.now() - t)} ms`);
  if (OLD > 0) {
    t = performance.now();
    // Each past month has had its partition since it was the current one.
    await bulk(
      `SELECT sparrow_create_partition('messages', (now() - make_interval(months => m))::date) FROM generate_series(0, 12) m`,
      [],
    );
    // UUIDv7 ids of past moments (the timestamp bits, then random ones), oldest first.
    await bulk(
      `INSERT INTO messages (account_id, id, contact_id, phone_number_id, from_number, to_number, outgoing, body,
                             encoding, segments, price, status, provider, attempts, created_at, updated_at, sent_at, delivered_at)
       SELECT $1, (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(gen_random_uuid()::text, 16))::uuid,
              NULL, NULL, '+14155550100', '+1201' || lpad((i % 1000000)::text, 7, '0'), true, 'An old message, delivered long ago.',
              'GSM-7', 1, 0.0079, 'delivered', 'simulator', 1, at, at, at, at
         FROM generate_series(1, $2) i
        CROSS JOIN LATERAL (SELECT now() - interval '365 days' + (i::float8 / $2) * interval '360 days' AS at) a
        CROSS JOIN LATERAL (SELECT lpad(to_hex((extract(epoch FROM a.at) * 1000)::bigint), 12, '0') AS h) x`,
      [account.id, OLD],
    );
    await bulk('ANALYZE messages', []);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM messages_default');
    console.log(
      `seeded ${fmt(OLD)} old messages in ${fmt(performance.now() - t)} ms (${fmt(rows[0].n)} in the default partition)`,
    );
  }
  await db.query('UPDATE phone_numbers SET throughput_mps = $2 WHERE account_id = $1', [
    account.id,
    THROUGHPUT,
  ]);
  console.log(
    `the account's number sends at ${fmt(THROUGHPUT)} msg/s for this run, so its rate limit is not the bottleneck`,
  );

  const api = await buildApiApp(ctx, { logger: process.env.LOG_LEVEL !== undefined });
  workers = startWorkers(ctx, [dispatch], (m) => console.error(m));

  const t0 = performance.now();
  const res = await api.inject({
    method: 'POST',
    url: `/v1/accounts/${account.id}/messages`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ filters: { tags: ['bench'] }, template: TEMPLATE }),
  });
  const accepted = performance.now();
  if (res.statusCode !== 200) throw new Error(`send answered ${res.statusCode}: ${res.body}`);
  const { jobId, queued } = JSON.parse(res.body).data as { jobId: string; queued: number };
  if (queued !== N) throw new Error(`queued ${queued} of ${N}`);

  for (;;) {
    const { rows } = await db.query<{ pending: number }>(
      'SELECT pending FROM send_jobs WHERE account_id = $1 AND id = $2',
      [account.id, jobId],
    );
    if (rows[0].pending === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const done = performance.now();
  const named = await namedSends(api, account.id, token);
  const { rows: statuses } = await db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM messages WHERE account_id = $1 AND job_id = $2 GROUP BY status`,
    [account.id, jobId],
  );
  await workers.stop();
  workers = undefined;
  const floor = FLOOR > 0 ? await acceptCost(api, account.id, token) : undefined;
  await api.close();
  // How many message updates stayed on their page without touching an index (statistics lag a little).
  await new Promise((r) => setTimeout(r, 700));
  const { rows: hot } = await db.query<{ upd: number; hot: number }>(
    `SELECT sum(n_tup_upd)::int AS upd, sum(n_tup_hot_upd)::int AS hot FROM pg_stat_user_tables
      WHERE relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'messages'::regclass)`,
  );

  // The raw ceiling: the same number of message-shaped rows, inserted and updated set-based by PostgreSQL alone.
  await db.query(`CREATE TABLE bench_raw (
    account_id uuid NOT NULL, id uuid NOT NULL, contact_id uuid, phone_number_id uuid, to_number text, body text,
    encoding text, segments int, price numeric(14, 4), status text NOT NULL, attempts int NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (account_id, id))`);
  await db.query('CREATE INDEX bench_raw_created ON bench_raw (account_id, created_at DESC, id DESC)');
  await db.query('CREATE INDEX bench_raw_contact ON bench_raw (account_id, contact_id, created_at DESC)');
  t = performance.now();
  await bulk(
    `INSERT INTO bench_raw (account_id, id, contact_id, phone_number_id, to_number, body, encoding, segments, price, status)
     SELECT c.account_id, sparrow_uuidv7(), c.id, NULL, c.mobile_number, 'Hi ' || c.first_name || ', your offer ends Sunday.',
            'GSM-7', 1, 0.0079, 'queued'
     FROM contacts c WHERE c.account_id = $1 AND c.mobile_number LIKE '+1201%'`,
    [account.id],
  );
  const rawInsert = performance.now() - t;
  t = performance.now();
  await bulk(`UPDATE bench_raw SET status = 'sent', attempts = attempts + 1 WHERE account_id = $1`, [
    account.id,
  ]);
  const rawUpdate = performance.now() - t;
  await db.query('DROP TABLE bench_raw');

  clearInterval(sampler);
  const acceptMs = accepted - t0;
  const totalMs = done - t0;
  const raw = rawInsert + rawUpdate;
  const rate = (N * 1000) / totalMs;
  console.log(`\nbench:send — N = ${fmt(N)}, Node ${process.version}, simulator provider, in-process worker`);
  console.log(
    `statuses when the job completed: ${statuses.map((s) => `${s.status} ${fmt(s.n)}`).join(', ')}`,
  );
  console.log(
    `API time to accept (render, segment, price, insert ${fmt(N)} rows, charge): ${fmt(acceptMs)} ms`,
  );
  console.log(`end to end, POST to the last message sent: ${fmt(totalMs)} ms = ${fmt(rate)} messages/s`);
  console.log(
    `accept rate: filter ${fmt((N * 1000) / acceptMs)} recipients/s (one POST); ` +
      named
        .map(
          (n) =>
            `named ${n.kind} ${fmt((N * 1000) / n.acceptMs)} recipients/s (${fmt(n.calls)} POSTs of ${fmt(BATCH)}, ${CONCURRENCY} at once, ${fmt(n.acceptMs)} ms; end to end ${fmt((N * 1000) / n.totalMs)} msg/s)`,
        )
        .join('; '),
  );
  if (floor)
    console.log(
      `accept alone, no dispatcher (${fmt(FLOOR)} new mobiles, calls of ${fmt(BATCH)} one at a time): CPU per recipient ` +
        `PostgreSQL ${floor.pgUs === undefined ? 'n/a (its processes are not on this machine)' : `${fmt(floor.pgUs)} µs`}, ` +
        `this process ${fmt(floor.nodeUs)} µs`,
    );
  console.log(`peak RSS of this process: ${fmt(peakRss / 2 ** 20, 1)} MB`);
  console.log(`message row updates: ${fmt(hot[0]?.upd ?? 0)}, of which HOT: ${fmt(hot[0]?.hot ?? 0)}`);
  console.log(
    `raw ceiling: INSERT … SELECT ${fmt(rawInsert)} ms + UPDATE ${fmt(rawUpdate)} ms = ${fmt(raw)} ms (${fmt((N * 1000) / raw)} rows/s)`,
  );
  console.log(`ratio to the raw ceiling: ${fmt((100 * raw) / totalMs, 1)} %`);
  console.log(
    'targets: >= 5,000 messages/s end to end, >= 25 % of the raw ceiling, peak RSS < 300 MB at 1,000,000',
  );
} finally {
  clearInterval(sampler);
  await workers?.stop();
  await ctx.close();
  await db.end();
  await database.stop();
}
