/**
 * `npm run bench:peer`: a race on the same work. Kannel (Debian's 1.4.5: bearerbox + smsbox,
 * `smsc = smpp`) and Sparrow (`sparrow start` on an embedded PostgreSQL with its default
 * settings: fsync on, synchronous commit) each deliver N messages to ONE SMPP sink
 * (bench/smpp-sink.ts: acknowledges every submit_sm, counts distinct destinations), alternated
 * ROUNDS times in one run; end to end = the first request sent to the last submit_sm at the sink.
 *
 * Races (RACES, default `http,smpp`):
 * - `http`: both take the N recipients over HTTP, BATCH named mobiles a call (Kannel's sendsms
 *   `to` with the numbers space-separated; Sparrow's POST …/messages with `contacts[].mobile`),
 *   CONCURRENCY calls at once.
 * - `smpp`: clients submit over SMPP, one submit_sm per message, WINDOW outstanding. Sparrow takes
 *   them on its SMPP server (SMPP_SERVER_PORT). Kannel 1.4.5 cannot accept an ESME's bind (its
 *   boxes speak SMPP only as the ESME; opensmppbox is a separate add-on Debian does not ship), so
 *   its side of this race is what it can take in: sendsms, one message per GET, CONCURRENCY
 *   connections (and its 2,000-a-call figure from the `http` race).
 *
 * CPU: utime+stime (children included) from /proc of each peer's processes: bearerbox and smsbox;
 * the Sparrow process and its PostgreSQL (postmaster and backends). Env: N (100000), ROUNDS (3),
 * BATCH (2000), CONCURRENCY (4), WINDOW (100: Kannel's max-pending-submits, Sparrow's
 * SMPP_WINDOW_SIZE, and the SMPP clients' window), IN_FLIGHT (Sparrow's DISPATCH_IN_FLIGHT; unset:
 * its default), RACES, TICK (set: each round also prints, every second, the messages the sink got
 * and each process's CPU seconds in that second, which shows where the round is CPU-bound), PROFILE
 * (a directory: the Sparrow process writes a V8 CPU profile there when it stops), ROLES (`split`:
 * Sparrow as `sparrow api` and `sparrow worker`, two processes on the one database; `api`: the
 * listeners alone, no dispatcher, and Sparrow's round is its accept alone; default one
 * `sparrow start`), PGSS (set: PostgreSQL preloads pg_stat_statements and each Sparrow round prints
 * the statements that took most of its time).
 */
import os from 'node:os';
import path from 'node:path';
import smpp, { type PDU } from 'smpp';
import { ensureBundle } from '../scripts/bundle.js';
import { createPool } from '../src/db/client.ts';
import { freePort } from '../src/db/embedded.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { SYSTEM } from '../src/domain/actor.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { createSmppCredential } from '../src/domain/smpp/create-credential.ts';
import { BEARERBOX } from '../test/support/kannel-config.ts';
import { type Kannel, startKannel } from './kannel-peer.ts';
import { postmasterPid, treeCpuSeconds } from './proc-cpu.ts';
import { agent, type Peer, pool, request, sleep, spawnLogged, stopChild } from './race-support.ts';
import { type SmppSink, startSmppSink } from './smpp-sink.ts';
import { benchDatabase, fmt, topStatements } from './support.ts';

const N = Number(process.env.N ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BATCH = Number(process.env.BATCH ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const WINDOW = Number(process.env.WINDOW ?? 100);
const RACES = (process.env.RACES ?? 'http,smpp').split(',').map((r) => r.trim());
const IN_FLIGHT = process.env.IN_FLIGHT;
const TICK = Boolean(process.env.TICK);
const PROFILE = process.env.PROFILE;
const ROLES = process.env.ROLES ?? 'start';
const PGSS = Boolean(process.env.PGSS);
const TEXT = 'Your appointment is confirmed for Tuesday 10:30. Reply STOP to opt out.';
const ROUND_TIMEOUT_MS = Number(process.env.ROUND_TIMEOUT_MS ?? 900_000);
const BIN = path.resolve('bin/sparrow.js');

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Round r's destinations: N distinct US numbers of an area code of their own (no round repeats one). */
const AREAS = ['201', '202', '203', '205', '206', '207', '208', '209', '210', '212', '213', '214'];
const destination = (round: number, i: number) => `+1${AREAS[round % AREAS.length]}${2_000_000 + i}`;

// --- The peers -------------------------------------------------------------------------------------

interface Sparrow extends Peer {
  apiPort: number;
  smppPort: number;
  accountId: string;
  token: string;
  systemId: string;
  password: string;
  sourceNumber: string;
  /** Messages of the account in `sent`. */
  sent(): Promise<number>;
  /** PGSS: the statements that took most of PostgreSQL's time since the last call. */
  statements(): Promise<string[]>;
}

async function startSparrow(sinkPort: number): Promise<Sparrow> {
  await ensureBundle();
  const database = await benchDatabase({ statements: PGSS });
  const db = createPool(database.url, 2);
  const postmaster = (await postmasterPid(db)) ?? 0;
  const { account } = await createAccount(db, { name: 'peer race', balance: 10_000_000 });
  const { client, secret } = await createClient(db, account.id);
  const { credential, password } = await createSmppCredential(
    db,
    account.id,
    { throughput: 100_000, name: 'bench' },
    SYSTEM,
    100_000,
  );
  const [apiPort, externalsPort, smppPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    EXTERNALS_PORT: String(externalsPort),
    PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
    EXTERNALS_URL: `http://127.0.0.1:${externalsPort}`,
    SMPP_URL: `smpp://127.0.0.1:${sinkPort}`,
    SMPP_SYSTEM_ID: 'sparrow',
    SMPP_PASSWORD: 'sparrow',
    SMPP_WINDOW_SIZE: String(WINDOW),
    SMPP_MAX_PER_SECOND: '0',
    SMPP_SERVER_PORT: String(smppPort),
    SMPP_SERVER_WINDOW: String(Math.max(WINDOW, 50)),
    ...(IN_FLIGHT ? { DISPATCH_IN_FLIGHT: IN_FLIGHT } : {}),
    RATE_LIMIT_PER_MINUTE: '100000000',
    QUIET_HOURS_ENABLED: 'false',
    LOG_LEVEL: 'warn',
  };
  const sparrow = (role: string) =>
    spawnLogged(
      process.execPath,
      [
        '--max-old-space-size=256',
        ...(PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : []),
        BIN,
        role,
      ],
      env,
      process.cwd(),
    );
  // ROLES=split: the listeners and the workers as two processes on the one database (the scale-out
  // shape on one machine); else one `sparrow start`.
  const procs =
    ROLES === 'split'
      ? [sparrow('api'), sparrow('worker')]
      : ROLES === 'api'
        ? [sparrow('api')]
        : [sparrow('start')];
  const proc = procs[0];
  const api = `http://127.0.0.1:${apiPort}`;
  for (let i = 0; ; i++) {
    const res = await request(`${api}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    if (proc.child.exitCode !== null || i > 1200) throw new Error(`sparrow did not start:\n${proc.output()}`);
    await sleep(100);
  }
  const tokenRes = await request(`${api}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.id, client_secret: secret }),
  });
  const token = JSON.parse(tokenRes.text).access_token as string;
  if (!token) throw new Error(`no token: ${tokenRes.text}`);
  // The account's number goes out through the SMPP provider (the sink) with no rate of its own.
  const { rows: numbers } = await db.query<{ number: string }>(
    `UPDATE phone_numbers SET provider = 'smpp', throughput_mps = 1000000 WHERE account_id = $1 RETURNING number`,
    [account.id],
  );
  return {
    name: 'Sparrow',
    apiPort,
    smppPort,
    accountId: account.id,
    token,
    systemId: credential.system_id,
    password,
    sourceNumber: numbers[0].number,
    pids: () => [...procs.map((p) => p.child.pid ?? 0), postmaster],
    cpuParts: ROLES === 'split' ? ['api', 'worker', 'PostgreSQL'] : ['node', 'PostgreSQL'],
    async sent() {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND status = 'sent'`,
        [account.id],
      );
      return rows[0].n;
    },
    statements: () => (PGSS ? topStatements(db) : Promise.resolve([])),
    async stop() {
      for (const p of procs) await stopChild(p.child);
      await db.end();
      await database.stop();
    },
  };
}

// --- One round --------------------------------------------------------------------------------------

interface RoundResult {
  peer: string;
  rate: number;
  acceptMs: number;
  totalMs: number;
  cpuPer1000: number;
  duplicates: number;
}

async function round(
  peer: Peer,
  sink: SmppSink,
  feed: () => Promise<void>,
  after?: () => Promise<string>,
): Promise<RoundResult> {
  sink.reset();
  const roots = peer.pids();
  const cpu0 = treeCpuSeconds(roots);
  const each0 = roots.map((pid) => treeCpuSeconds([pid]));
  const t0 = performance.now();
  const ticker = TICK ? tickEachSecond(roots, sink, t0) : undefined;
  await feed();
  const accepted = performance.now();
  if (ticker) console.log(`    t=${fmt((accepted - t0) / 1000, 1)}: accepted`);
  // ROLES=api: Sparrow has no dispatcher, its round is the accept alone.
  const acceptOnly = ROLES === 'api' && peer.name === 'Sparrow';
  if (!acceptOnly) await sink.waitFor(N, ROUND_TIMEOUT_MS);
  clearInterval(ticker);
  const totalMs = acceptOnly ? accepted - t0 : sink.lastAt - t0;
  // Anything left in flight that would still cost CPU (records of the last acknowledgements).
  const note = acceptOnly ? ', the accept alone' : after ? await after() : '';
  const cpu = treeCpuSeconds(roots) - cpu0;
  const each = roots.map((pid, k) => treeCpuSeconds([pid]) - each0[k]);
  const r = {
    peer: peer.name,
    rate: (N * 1000) / totalMs,
    acceptMs: accepted - t0,
    totalMs,
    cpuPer1000: (cpu * 1000) / N,
    duplicates: sink.total - sink.distinct,
  };
  console.log(
    `  ${peer.name.padEnd(8)} accepted in ${fmt(r.acceptMs)} ms, last submit_sm at ${fmt(totalMs)} ms: ` +
      `${fmt(r.rate)} msg/s; CPU ${fmt(cpu, 1)} s (${peer.cpuParts.map((p, k) => `${p} ${fmt(each[k], 1)}`).join(', ')}) = ${fmt(r.cpuPer1000, 3)} s per 1,000; ` +
      `${fmt(sink.distinct)} distinct, ${r.duplicates} duplicates${note}; load ${load()}`,
  );
  return r;
}

/** TICK: every second, the sink's new messages and the CPU seconds of each of the peer's processes. */
function tickEachSecond(roots: number[], sink: SmppSink, t0: number) {
  let last = { n: sink.distinct, cpu: roots.map((pid) => treeCpuSeconds([pid])) };
  return setInterval(() => {
    const now = { n: sink.distinct, cpu: roots.map((pid) => treeCpuSeconds([pid])) };
    const cpu = now.cpu.map((c, k) => fmt(c - last.cpu[k], 2)).join(' + ');
    console.log(
      `    t=${fmt((performance.now() - t0) / 1000, 1)}: sink +${fmt(now.n - last.n)}, CPU ${cpu} s`,
    );
    last = now;
  }, 1000);
}

/** Kannel: sendsms GETs naming `per` recipients each (space-separated `to`). */
function kannelFeed(kannel: Kannel, r: number, per: number, width: number) {
  return () =>
    pool(Math.ceil(N / per), width, async (b) => {
      const to: string[] = [];
      for (let i = b * per; i < Math.min(N, (b + 1) * per); i++) to.push(destination(r, i));
      const q = new URLSearchParams({
        username: 'bench',
        password: 'benchpass',
        from: '12015550100',
        to: to.join(' '),
        text: TEXT,
      });
      const res = await request(`http://127.0.0.1:${kannel.sendsmsPort}/cgi-bin/sendsms?${q}`);
      if (res.status !== 202)
        throw new Error(`Kannel sendsms answered ${res.status}: ${res.text.slice(0, 300)}`);
    });
}

/** Sparrow: POST …/messages naming BATCH mobiles each. */
function sparrowHttpFeed(s: Sparrow, r: number) {
  return () =>
    pool(Math.ceil(N / BATCH), CONCURRENCY, async (b) => {
      const contacts: { mobile: { number: string } }[] = [];
      for (let i = b * BATCH; i < Math.min(N, (b + 1) * BATCH); i++)
        contacts.push({ mobile: { number: destination(r, i) } });
      const res = await request(`http://127.0.0.1:${s.apiPort}/v1/accounts/${s.accountId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ contacts, template: TEXT }),
      });
      if (res.status !== 200)
        throw new Error(`Sparrow send answered ${res.status}: ${res.text.slice(0, 300)}`);
    });
}

/** Sparrow: one ESME bound as transmitter to its SMPP server, N submit_sm with WINDOW outstanding. */
function sparrowSmppFeed(s: Sparrow, r: number) {
  return async () => {
    const session = smpp.connect({ url: `smpp://127.0.0.1:${s.smppPort}` });
    await new Promise<void>((resolve, reject) => {
      session.once('error', reject);
      session.send(
        new smpp.PDU('bind_transmitter', { system_id: s.systemId, password: s.password }),
        (pdu: PDU) =>
          pdu.command_status === 0 ? resolve() : reject(new Error(`bind ${pdu.command_status}`)),
      );
    });
    const source = s.sourceNumber.slice(1);
    let next = 0;
    let refused = 0;
    await new Promise<void>((resolve) => {
      let done = 0;
      const submitOne = () => {
        if (next >= N) return;
        const i = next++;
        session.submit_sm(
          {
            source_addr: source,
            source_addr_ton: 1,
            destination_addr: destination(r, i).slice(1),
            dest_addr_ton: 1,
            registered_delivery: 1,
            data_coding: 0,
            short_message: Buffer.from(TEXT),
          },
          (resp: PDU) => {
            if (resp.command_status !== 0) refused++;
            if (++done === N) resolve();
            else submitOne();
          },
        );
      };
      for (let w = 0; w < WINDOW; w++) submitOne();
    });
    session.destroy();
    if (refused) throw new Error(`Sparrow's SMPP server refused ${refused} submit_sm`);
  };
}

/** Waits until every message of the round is recorded `sent` in Sparrow's database. */
function sparrowRecorded(s: Sparrow, expected: number) {
  return async () => {
    for (let i = 0; ; i++) {
      const n = await s.sent();
      if (n >= expected) return `, ${fmt(n)} sent in PostgreSQL`;
      if (i > 6000) return `, only ${fmt(n)} of ${fmt(expected)} recorded sent`;
      await sleep(50);
    }
  };
}

function summary(title: string, a: RoundResult[], b: RoundResult[]) {
  const [ra, rb] = [median(a.map((x) => x.rate)), median(b.map((x) => x.rate))];
  const [ca, cb] = [median(a.map((x) => x.cpuPer1000)), median(b.map((x) => x.cpuPer1000))];
  console.log(`\n  ${title}`);
  console.log(
    `  medians: ${a[0].peer} ${fmt(ra)} msg/s (CPU ${fmt(ca, 3)} s per 1,000), ${b[0].peer} ${fmt(rb)} msg/s (CPU ${fmt(cb, 3)} s per 1,000)`,
  );
  console.log(
    `  ratio ${b[0].peer}/${a[0].peer}: ${fmt(rb / ra, 2)}× the rate, ${fmt(cb / ca, 2)}× the CPU per message`,
  );
}

// --- The run ------------------------------------------------------------------------------------------

console.log(
  `# bench:peer — N = ${fmt(N)}, ${ROUNDS} alternated rounds, ${os.cpus().length} cores, load average ${load()}`,
);
const sink = await startSmppSink();
let kannel: Kannel | undefined;
let sparrow: Sparrow | undefined;
try {
  kannel = await startKannel(sink.port, WINDOW);
  sparrow = await startSparrow(sink.port);
  let sparrowSent = 0;
  let r = 0;
  console.log(
    `  sink on ${sink.port}; Kannel ${BEARERBOX} (max-pending-submits ${WINDOW}, file store); Sparrow ${BIN} start ` +
      `(embedded PostgreSQL, fsync on; SMPP window ${WINDOW}; DISPATCH_IN_FLIGHT ${IN_FLIGHT ?? 'default (256)'})`,
  );
  if (RACES.includes('http')) {
    console.log(
      `\n## over HTTP: ${fmt(BATCH)} named mobiles a call, ${CONCURRENCY} calls at once (Kannel sendsms; Sparrow POST …/messages)`,
    );
    const ks: RoundResult[] = [];
    const ss: RoundResult[] = [];
    for (let i = 0; i < ROUNDS; i++, r++) {
      console.log(`round ${i + 1}`);
      ks.push(await round(kannel, sink, kannelFeed(kannel, r, BATCH, CONCURRENCY)));
      sparrowSent += N;
      await sparrow.statements();
      ss.push(await round(sparrow, sink, sparrowHttpFeed(sparrow, r), sparrowRecorded(sparrow, sparrowSent)));
      for (const line of await sparrow.statements()) console.log(`    ${line}`);
    }
    summary('over HTTP, end to end (first request → last submit_sm at the sink):', ks, ss);
  }
  if (RACES.includes('smpp')) {
    console.log(
      `\n## clients over SMPP: one submit_sm a message, window ${WINDOW}, into Sparrow's SMPP server. Kannel 1.4.5 accepts ` +
        `no ESME binds (no SMPP server box in Debian's package): its side is sendsms, one message a GET, ${CONCURRENCY * 4} connections`,
    );
    const ks: RoundResult[] = [];
    const ss: RoundResult[] = [];
    for (let i = 0; i < ROUNDS; i++, r++) {
      console.log(`round ${i + 1}`);
      ks.push(await round(kannel, sink, kannelFeed(kannel, r, 1, CONCURRENCY * 4)));
      sparrowSent += N;
      await sparrow.statements();
      ss.push(await round(sparrow, sink, sparrowSmppFeed(sparrow, r), sparrowRecorded(sparrow, sparrowSent)));
      for (const line of await sparrow.statements()) console.log(`    ${line}`);
    }
    summary('one message a request, end to end (Kannel sendsms GET; Sparrow submit_sm):', ks, ss);
  }
  console.log(`\nload average at the end: ${load()}`);
} finally {
  await kannel?.stop();
  await sparrow?.stop();
  await sink.close();
  agent.destroy();
}
process.exit(0);
