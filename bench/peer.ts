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
 * - `smpp`: clients submit over SMPP, one submit_sm per message, WINDOW outstanding (the ESME writes
 *   those of one turn of its event loop together, TCP_NODELAY, as Node's HTTP client does). Sparrow takes
 *   them on its SMPP server (SMPP_SERVER_PORT). Kannel 1.4.5 cannot accept an ESME's bind (its
 *   boxes speak SMPP only as the ESME; opensmppbox is a separate add-on Debian does not ship), so
 *   its side of this race is what it can take in: sendsms, one message per GET, CONCURRENCY
 *   connections (and its 2,000-a-call figure from the `http` race).
 *
 * CPU: utime+stime (children included) from /proc of each peer's processes: bearerbox and smsbox;
 * the Sparrow process and its PostgreSQL (postmaster and backends); and this process's own (the
 * clients and the sink), which shares the machine with both. Env: N (100000), ROUNDS (3),
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
import type { Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import smpp, { type PDU } from 'smpp';
import { coalesceWrites } from '../src/net/coalesce-writes.ts';
import { BEARERBOX } from '../test/support/kannel-config.ts';
import { type Kannel, startKannel } from './kannel-peer.ts';
import { treeCpuSeconds } from './proc-cpu.ts';
import { agent, closeIdleSockets, type Peer, pool, request, sleep } from './race-support.ts';
import { type SmppSink, startSmppSink } from './smpp-sink.ts';
import { type Sparrow, startSparrow } from './sparrow-peer.ts';
import { fmt } from './support.ts';

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
  closeIdleSockets();
  const roots = peer.pids();
  const cpu0 = treeCpuSeconds(roots);
  const own0 = process.cpuUsage();
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
  const own = process.cpuUsage(own0);
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
      `${fmt(sink.distinct)} distinct, ${r.duplicates} duplicates${note}; this process (clients and sink) ${fmt((own.user + own.system) / 1e6, 1)} s of CPU; load ${load()}`,
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
    // As an ESME that writes what it has together: the submit_sm of one turn of the event loop
    // leave in one write, without Nagle's wait (Node's HTTP client, Kannel's side, runs without it too).
    const socket = (session as unknown as { socket: Socket }).socket;
    socket.setNoDelay(true);
    const source = s.sourceNumber.slice(1);
    let next = 0;
    let refused = 0;
    await new Promise<void>((resolve) => {
      let done = 0;
      const submitOne = () => {
        if (next >= N) return;
        const i = next++;
        coalesceWrites(socket);
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
  sparrow = await startSparrow(sink.port, {
    window: WINDOW,
    inFlight: IN_FLIGHT,
    profile: PROFILE,
    roles: ROLES,
    statements: PGSS,
  });
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
