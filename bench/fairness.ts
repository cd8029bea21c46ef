/**
 * `npm run bench:fairness` (issue 25): what one account's load does to another's, in one run, on
 * the simulator (both accounts' numbers at 1,000,000 msg/s, so only Sparrow's own scheduling counts:
 * at 10,000 msg/s, as this bench first ran, the dispatcher outran a number and A's share at 3:1
 * was bounded by its own number's rate, the rest going to B).
 *
 * 1. Dispatch: account B's one text and its 50-recipient send, each alone, then right after account
 *    A has queued BIG texts (calls of 2,000 named mobiles, 4 at a time, accepted while the
 *    dispatcher is stopped): the time until B's messages are handed to the carrier (every message
 *    of the job left the queue), and A's whole send.
 *    Also the CPU (this process + PostgreSQL's) per message of A's send. Then B's sends again while
 *    A posts another BIG texts (the dispatcher running): what A's calls in flight do to B's.
 * 2. The split: A and B each queue SPLIT texts (the dispatcher stopped meanwhile); from its start
 *    until the first has nothing left to hand out, the share of what was handed out that was A's
 *    (A's weight 1, then 3). The grain of the turns is a range (2,000 at the simulator's pace):
 *    SPLIT is 20 of them.
 * 3. The split at one carrier capped at CAP messages a second (an SMPP sink, bench/smpp-sink.ts,
 *    behind an SMPP instance with maxPerSecond CAP that both accounts' numbers use): each account's
 *    CAPPED texts alone (its rate), then both at once, weights 1:1 and 3:1 (each one's share and
 *    rate from both queued to the first finished).
 * 4. Webhooks: the delay of account A's first attempts (10 events, a receiver that answers) alone,
 *    then beside account B's six subscriptions that never answer (60 events each).
 *
 * Env: BIG (60000), SPLIT (40000), CAP (100), CAPPED (1000), DATABASE_URL (else embedded PostgreSQL),
 * LOG_LEVEL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool, withTx } from '../src/db/client.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { emitEvent } from '../src/domain/events/emit.ts';
import { buildApiApp } from '../src/http/app.ts';
import { dispatch } from '../src/workers/dispatch.ts';
import { startWorkers } from '../src/workers/index.ts';
import { webhookDelivery } from '../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../src/workers/webhook-fanout.ts';
import { postmasterPid, treeCpuSeconds } from './proc-cpu.ts';
import { startSmppSink } from './smpp-sink.ts';
import { atATime, benchDatabase, fmt, median } from './support.ts';

const BIG = Number(process.env.BIG ?? 60_000);
const SPLIT = Number(process.env.SPLIT ?? 40_000);
const CAP = Number(process.env.CAP ?? 100);
const CAPPED = Number(process.env.CAPPED ?? 1000);
const BATCH = 2000;
/** Each account's numbers' own rate: far above what the dispatcher or the capped carrier takes. */
const NUMBER_MPS = 1_000_000;

const database = await benchDatabase();
const sink = await startSmppSink();
const config = {
  ...loadConfig({
    RATE_LIMIT_PER_MINUTE: '1000000000',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    PROVIDERS: JSON.stringify([
      {
        name: 'capped',
        kind: 'smpp',
        url: `smpp://127.0.0.1:${sink.port}`,
        systemId: 'bench',
        password: 'bench',
        maxPerSecond: CAP,
      },
    ]),
  }),
  databaseUrl: database.url,
  webhooksAllowPrivate: true,
};
const db = createPool(database.url, 10, config.db);
const ctx = createContext(config, db);
let api: FastifyInstance | undefined;
let workers: { stop: () => Promise<void> }[] = [];
let dispatcher: { stop: () => Promise<void> } | undefined;
let mobile = 0;

interface Acc {
  id: string;
  token: string;
}

async function account(name: string): Promise<Acc> {
  const { account } = await createAccount(db, { name, balance: 1_000_000 });
  const { client } = await createClient(db, account.id);
  const token = await ctx.tokens.issue(
    { id: client.id, name: client.name, accountId: account.id },
    client.scopes,
  );
  await db.query('UPDATE phone_numbers SET throughput_mps = $2 WHERE account_id = $1', [
    account.id,
    NUMBER_MPS,
  ]);
  return { id: account.id, token };
}

async function inject(acc: Acc, method: 'POST' | 'GET', url: string, json?: object) {
  const res = await (api as FastifyInstance).inject({
    method,
    url: `/v1/accounts/${acc.id}${url}`,
    headers: { authorization: `Bearer ${acc.token}`, 'content-type': 'application/json' },
    payload: json === undefined ? undefined : JSON.stringify(json),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return JSON.parse(res.body);
}

/** One send to `n` new mobiles; answers its job id. */
async function send(acc: Acc, n: number): Promise<string> {
  const contacts = Array.from({ length: n }, () => ({ mobile: { number: `+1202${2_000_000 + mobile++}` } }));
  return (await inject(acc, 'POST', '/messages', { contacts, template: 'Hello from the fairness bench' }))
    .data.jobId;
}

async function jobsDone(accountId: string, jobIds: string[]): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ pending: number }>(
      'SELECT coalesce(sum(pending), 0)::int AS pending FROM send_jobs WHERE account_id = $1 AND id = ANY($2::uuid[])',
      [accountId, jobIds],
    );
    if (rows[0].pending === 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Sends to `n` and answers the ms until every message left the queue. */
async function timed(acc: Acc, n: number): Promise<number> {
  const t = performance.now();
  const job = await send(acc, n);
  await jobsDone(acc.id, [job]);
  return performance.now() - t;
}

/** A's big send: calls of BATCH named mobiles, 4 at a time; answers the job ids once all are accepted. */
async function bigSend(acc: Acc, total: number): Promise<string[]> {
  return atATime(Math.ceil(total / BATCH), 4, (i) => send(acc, Math.min(BATCH, total - i * BATCH)));
}

async function dispatchFigures() {
  const a = await account('A');
  const b = await account('B');
  const oneAlone: number[] = [];
  const fiftyAlone: number[] = [];
  for (let i = 0; i < 3; i++) oneAlone.push(await timed(b, 1));
  for (let i = 0; i < 3; i++) fiftyAlone.push(await timed(b, 50));
  console.log(
    `B alone: one text ${fmt(median(oneAlone))} ms, 50 texts ${fmt(median(fiftyAlone))} ms (median of 3)`,
  );

  const pg = await postmasterPid(db);
  const cpu0 = { node: process.cpuUsage(), pg: pg === undefined ? 0 : treeCpuSeconds([pg]) };
  const t0 = performance.now();
  // A's send is queued whole (the dispatcher stopped while it is accepted: on a service whose
  // accept outpaces its carrier, as the issue measured, that is the backlog B meets), then B sends.
  await dispatcher?.stop();
  const jobs = await bigSend(a, BIG);
  const accepted = performance.now() - t0;
  dispatcher = startWorkers(ctx, [dispatch], (m) => console.error(m));
  const oneBeside = await timed(b, 1);
  const fiftyBeside = await timed(b, 50);
  await jobsDone(a.id, jobs);
  const aTotal = performance.now() - t0;
  const node = process.cpuUsage(cpu0.node);
  const pgSeconds = pg === undefined ? undefined : treeCpuSeconds([pg]) - cpu0.pg;
  console.log(
    `beside A's ${fmt(BIG)} texts (accepted in ${fmt(accepted)} ms, all sent in ${fmt(aTotal)} ms): ` +
      `B's one text ${fmt(oneBeside)} ms (${fmt(oneBeside / median(oneAlone), 1)}× alone), ` +
      `B's 50 texts ${fmt(fiftyBeside)} ms (${fmt(fiftyBeside / median(fiftyAlone), 1)}× alone)`,
  );
  const n = BIG + 51;
  console.log(
    `CPU per message of that phase (accept and dispatch): this process ${fmt((node.user + node.system) / n, 1)} µs` +
      (pgSeconds === undefined ? '' : `, PostgreSQL ${fmt((pgSeconds * 1e6) / n, 1)} µs`),
  );

  // B's sends while A's are still being accepted (A posts its calls 4 at a time, the dispatcher runs):
  // the listener's turns per account (src/http/account-lanes.ts) keep A's calls from all being
  // worked on together in front of B's.
  const posting = bigSend(a, BIG);
  await new Promise((r) => setTimeout(r, 1000));
  const onePosting: number[] = [];
  const fiftyPosting: number[] = [];
  for (let i = 0; i < 3; i++) {
    onePosting.push(await timed(b, 1));
    fiftyPosting.push(await timed(b, 50));
  }
  const postingJobs = await posting;
  await jobsDone(a.id, postingJobs);
  console.log(
    `while A posts ${fmt(BIG)} texts (4 calls of ${fmt(BATCH)} at a time): B's one text ${fmt(median(onePosting))} ms ` +
      `(${fmt(median(onePosting) / median(oneAlone), 1)}× alone), B's 50 texts ${fmt(median(fiftyPosting))} ms ` +
      `(${fmt(median(fiftyPosting) / median(fiftyAlone), 1)}× alone) (median of 3)`,
  );
  return { a, b };
}

/**
 * What each account's sends had handed out: sent (their jobs' settled count) or in a range a lane
 * holds; and whether any of it is left to hand out (an open dispatch cursor). One snapshot.
 */
async function handedOut(a: Acc, ja: string[], b: Acc, jb: string[]) {
  const { rows } = await db.query<{ handed: number; open: boolean }>(
    `WITH x (account_id, jobs, n) AS (VALUES ($1::uuid, $2::uuid[], 1), ($3::uuid, $4::uuid[], 2))
     SELECT (SELECT coalesce(sum(j.queued - j.pending), 0) FROM send_jobs j
              WHERE j.account_id = x.account_id AND j.id = ANY(x.jobs))
          + (SELECT count(*) FROM dispatch_ranges r
               JOIN messages m ON m.account_id = r.account_id AND m.job_id = r.job_id AND m.id BETWEEN r.lo AND r.hi
                AND m.status = 'queued'
              WHERE r.account_id = x.account_id AND r.job_id = ANY(x.jobs)) AS handed,
            EXISTS (SELECT 1 FROM dispatch_cursors c WHERE c.account_id = x.account_id AND c.job_id = ANY(x.jobs)) AS open
       FROM x ORDER BY x.n`,
    [a.id, ja, b.id, jb],
  );
  return rows.map((r) => ({ handed: Number(r.handed), open: r.open }));
}

/**
 * A and B send SPLIT each at once (the dispatcher stopped meanwhile): A's share of what the
 * dispatcher handed out while both had texts left to hand out (until the first has none: its last
 * range claimed). Counted as handed out, not as sent: with ranges of 2,000 and four lanes, up to
 * three of the other account's ranges finish while the first one's last range is being sent.
 */
async function split(a: Acc, b: Acc, weightA: number) {
  await db.query('UPDATE accounts SET dispatch_weight = $2 WHERE id = $1', [a.id, weightA]).catch(() => {});
  // Both sends are queued whole before the dispatcher runs again, so both have work throughout.
  await dispatcher?.stop();
  const [ja, jb] = await Promise.all([bigSend(a, SPLIT), bigSend(b, SPLIT)]);
  dispatcher = startWorkers(ctx, [dispatch], (m) => console.error(m));
  let counts: { handed: number; open: boolean }[];
  for (;;) {
    counts = await handedOut(a, ja, b, jb);
    if (counts.some((c) => !c.open)) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.all([jobsDone(a.id, ja), jobsDone(b.id, jb)]);
  const [na, nb] = counts.map((c) => c.handed);
  console.log(
    `the split, ${fmt(SPLIT)} texts each at once, A's weight ${weightA}: A had ${fmt((na / (na + nb)) * 100, 1)} % ` +
      `(${fmt(na)} to ${fmt(nb)}) of what was handed out while both had texts left to hand out`,
  );
}

/** An account of the capped phase: its number goes out through the capped carrier. */
async function cappedAccount(name: string): Promise<Acc> {
  const acc = await account(name);
  await db.query(`UPDATE phone_numbers SET provider = 'capped' WHERE account_id = $1`, [acc.id]);
  return acc;
}

/**
 * Queues `n` texts for each account (the dispatcher stopped meanwhile), runs the dispatcher until
 * the first account is all sent and answers what each had sent by then and how long it took; the
 * rest is sent before it returns.
 */
async function cappedRace(accs: Acc[], n: number) {
  const sentOf = async (acc: Acc) =>
    (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND outgoing AND status <> 'queued'`,
        [acc.id],
      )
    ).rows[0].n;
  const before = await Promise.all(accs.map(sentOf));
  await dispatcher?.stop();
  const jobs = await Promise.all(accs.map((acc) => bigSend(acc, n)));
  const t0 = performance.now();
  dispatcher = startWorkers(ctx, [dispatch], (m) => console.error(m));
  let counts: number[];
  for (;;) {
    counts = (await Promise.all(accs.map(sentOf))).map((c, i) => c - before[i]);
    if (counts.some((c) => c >= n)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(accs.map((acc, i) => jobsDone(acc.id, jobs[i])));
  return { counts, seconds };
}

async function cappedFigures() {
  for (let i = 0; i < 500 && !ctx.providers.get('capped')?.linkUp?.(); i++)
    await new Promise((r) => setTimeout(r, 20));
  const a = await cappedAccount('capped A');
  const b = await cappedAccount('capped B');
  const head = `one carrier capped at ${fmt(CAP)} msg/s (SMPP), both accounts' numbers on it`;
  const alone = [];
  for (const acc of [a, b]) {
    const r = await cappedRace([acc], CAPPED);
    alone.push(r.counts[0] / r.seconds);
  }
  console.log(
    `${head}: alone, A's ${fmt(CAPPED)} texts at ${fmt(alone[0])} msg/s, B's at ${fmt(alone[1])} msg/s`,
  );
  for (const weightA of [1, 3]) {
    await db.query('UPDATE accounts SET dispatch_weight = $2 WHERE id = $1', [a.id, weightA]);
    const r = await cappedRace([a, b], CAPPED);
    const [na, nb] = r.counts;
    console.log(
      `${head}: together, ${fmt(CAPPED)} texts each at once, weights ${weightA}:1 — A had ${fmt((na / (na + nb)) * 100, 1)} % ` +
        `(${fmt(na / r.seconds)} msg/s), B ${fmt((nb / (na + nb)) * 100, 1)} % (${fmt(nb / r.seconds)} msg/s) ` +
        `of what was sent from both queued to the first finished (${fmt(r.seconds, 1)} s)`,
    );
  }
}

async function webhookFigures() {
  const received = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url?.startsWith('/hang')) {
        hanging.add(res);
        return;
      }
      const id = JSON.parse(Buffer.concat(chunks).toString()).eventId as string;
      if (!received.has(id)) received.set(id, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const a = await account('hooks A');
  const b = await account('hooks B');
  await inject(a, 'POST', '/webhooks', { url: url('/ok'), eventTypes: ['contact-created'] });
  const emit = (accountId: string, count: number) =>
    withTx(db, async (tx) => {
      const out: { id: string; at: number }[] = [];
      for (let i = 0; i < count; i++)
        out.push({
          id: await emitEvent(tx, accountId, 'contact-created', { id: `c${i}` }),
          at: performance.now(),
        });
      return out;
    });
  const firstAttempts = async () => {
    const events = await emit(a.id, 10);
    for (;;) {
      if (events.every((e) => received.has(e.id))) break;
      if (performance.now() - events[0].at > 120_000) return 'over 120 s';
      await new Promise((r) => setTimeout(r, 10));
    }
    return `${fmt(Math.max(...events.map((e) => (received.get(e.id) as number) - e.at)))} ms`;
  };
  console.log(`webhooks: A's 10 first attempts alone, the slowest after ${await firstAttempts()}`);
  for (let i = 0; i < 6; i++)
    await inject(b, 'POST', '/webhooks', { url: url(`/hang/${i}`), eventTypes: ['contact-created'] });
  await emit(b.id, 60);
  await new Promise((r) => setTimeout(r, 1000));
  console.log(
    `webhooks: beside B's 6 subscriptions that never answer (60 events each; ${hanging.size} requests of B hanging), A's slowest first attempt after ${await firstAttempts()}`,
  );
  for (const r of hanging) r.destroy();
  server.closeAllConnections();
  server.close();
}

try {
  api = await buildApiApp(ctx, { logger: process.env.LOG_LEVEL !== undefined });
  dispatcher = startWorkers(ctx, [dispatch], (m) => console.error(m));
  const { a, b } = await dispatchFigures();
  await split(a, b, 1);
  await split(a, b, 3);
  await cappedFigures();
  workers.push(
    startWorkers(ctx, [webhookFanOut({ idleMs: 20 }), webhookDelivery()], (m) => console.error(m)),
  );
  await webhookFigures();
} finally {
  for (const w of [...workers, ...(dispatcher ? [dispatcher] : [])]) await w.stop().catch(() => {});
  workers = [];
  await api?.close();
  await ctx.close();
  await db.end();
  await database.stop();
  await sink.close();
}
