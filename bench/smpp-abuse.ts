/**
 * `npm run bench:smpp-abuse`: one SMPP tenant floods first parts of concatenated messages
 * (`sar_total_segments` SEGMENTS, a PAYLOAD-byte `message_payload`, as fast as the server answers)
 * at a real `sparrow start` process under `--max-old-space-size=256` (as `npm start` runs it), while
 * another tenant binds from another loopback address once a second. Prints, each second: the
 * server's RSS and V8 heap (reported by the child itself), the flood's answers by status, and
 * whether the other tenant's bind and enquire_link were answered (and how fast); at the end, the
 * peaks and whether the process survived (its stderr's last line if not).
 *
 * Env: PARTS (first parts in all, default 20000), SEGMENTS (255), PAYLOAD (bytes of GSM-7 `Δ`, 16000), BINDS
 * (the flooder's binds, 4), CREDENTIALS (the flooder's credentials, its binds spread over them, 1), WINDOW (unanswered per bind, 200), SECONDS (longest run, 60),
 * SPARROW_DIR (the checkout to run, default this one: point it at an older tree to measure
 * before), DATABASE_URL (else embedded PostgreSQL).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import smpp, { type PDU, type Session } from 'smpp';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/client.ts';
import { freePort } from '../src/db/embedded.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createSmppCredential } from '../src/domain/smpp/create-credential.ts';
import { START_FLAGS } from '../test/support/start-flags.ts';
import { benchDatabase, fmt } from './support.ts';

const PARTS = Number(process.env.PARTS ?? 20_000);
const SEGMENTS = Number(process.env.SEGMENTS ?? 255);
const PAYLOAD = Number(process.env.PAYLOAD ?? 16_000);
const BINDS = Number(process.env.BINDS ?? 4);
const WINDOW = Number(process.env.WINDOW ?? 200);
const SECONDS = Number(process.env.SECONDS ?? 60);
const DIR = path.resolve(process.env.SPARROW_DIR ?? path.join(import.meta.dirname, '..'));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (n: number) => `${fmt(n / 2 ** 20, 0)} MB`;

function connect(port: number, localAddress: string): Promise<Session> {
  return new Promise((resolve, reject) => {
    const s = smpp.connect({ url: `smpp://127.0.0.1:${port}`, ...{ localAddress } });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

function request(
  s: Session,
  command: string,
  params: Record<string, unknown>,
  ms = 5000,
): Promise<PDU | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    const ok = s.send(new smpp.PDU(command, params), (resp) => {
      clearTimeout(timer);
      resolve(resp);
    });
    if (!ok) {
      clearTimeout(timer);
      resolve(undefined);
    }
  });
}

const database = await benchDatabase();
const db = createPool(database.url, 4, loadConfig({}).db);
const { account: attacker } = await createAccount(db, { name: 'flooder' });
const { account: victim } = await createAccount(db, { name: 'other tenant' });
const CREDENTIALS = Number(process.env.CREDENTIALS ?? 1);
const flooders: Awaited<ReturnType<typeof createSmppCredential>>[] = [];
for (let i = 0; i < CREDENTIALS; i++)
  flooders.push(await createSmppCredential(db, attacker.id, { throughput: 100_000 }, {}, 100));
const other = await createSmppCredential(db, victim.id, {}, {}, 100);
await db.end();

const [apiPort, externalsPort, smppPort] = [await freePort(), await freePort(), await freePort()];
// The child reports its own memory (heap and RSS) on stderr every 250 ms.
const report =
  'data:text/javascript,setInterval(()=>{const m=process.memoryUsage();' +
  'process.stderr.write("@mem "+JSON.stringify({rss:m.rss,heap:m.heapUsed,external:m.external})+"\\n")},250).unref()';
const child = spawn(process.execPath, [...START_FLAGS, '--import', report, 'bin/sparrow.js', 'start'], {
  cwd: DIR,
  env: {
    ...process.env,
    DATABASE_URL: database.url,
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    EXTERNALS_PORT: String(externalsPort),
    SMPP_SERVER_PORT: String(smppPort),
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'pipe'],
});
let mem = { rss: 0, heap: 0, external: 0 };
const peak = { rss: 0, heap: 0 };
let lastError = '';
let exited: string | undefined;
readline.createInterface({ input: child.stderr }).on('line', (line) => {
  if (line.startsWith('@mem ')) {
    mem = JSON.parse(line.slice(5));
    peak.rss = Math.max(peak.rss, mem.rss);
    peak.heap = Math.max(peak.heap, mem.heap);
  } else if (line.trim()) {
    lastError = line.trim();
    if (process.env.VERBOSE) console.log(`  [service] ${lastError.slice(0, 200)}`);
  }
});
child.on('exit', (code, signal) => {
  exited = `exited ${signal ?? code}`;
});

// Ready when the SMPP port answers a connection.
for (let i = 0; ; i++) {
  const s = await connect(smppPort, '127.0.0.1').catch(() => undefined);
  if (s) {
    s.destroy();
    break;
  }
  if (exited || i > 600) throw new Error(`the service did not start (${exited ?? 'timeout'}): ${lastError}`);
  await sleep(100);
}
await sleep(1000);
const baseline = { ...mem };
console.log(
  `sparrow start (${DIR}) under ${START_FLAGS.join(' ')}: RSS ${mb(baseline.rss)}, heap ${mb(baseline.heap)} at rest`,
);
console.log(
  `flood: ${PARTS} first parts, ${SEGMENTS} segments, ${PAYLOAD}-byte payload, ${BINDS} binds × ${WINDOW}`,
);

const statuses = new Map<number, number>();
let sent = 0;
let answered = 0;
let unanswered = 0;
// GSM-7 0x10 is Δ (U+0394): the decoded text is a two-byte string, the most the heap holds per byte sent.
const text = Buffer.alloc(PAYLOAD, 0x10);
async function flood(s: Session, bindIndex: number): Promise<void> {
  const flooder = flooders[bindIndex % CREDENTIALS];
  const bind = await request(s, 'bind_transmitter', {
    system_id: flooder.credential.system_id,
    password: flooder.password,
  });
  if (bind?.command_status !== 0) throw new Error(`the flooder's bind was refused (${bind?.command_status})`);
  let closed = false;
  s.on('close', () => {
    closed = true;
  });
  const one = async () => {
    while (sent < PARTS && !exited && !stop) {
      const ref = sent++;
      const resp = await request(s, 'submit_sm', {
        source_addr: '12015550100',
        source_addr_ton: 1,
        source_addr_npi: 1,
        destination_addr: `1201555${String((ref * BINDS + bindIndex) % 10_000).padStart(4, '0')}`,
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        data_coding: 0,
        short_message: Buffer.alloc(0),
        message_payload: text,
        sar_msg_ref_num: ref % 65_536,
        sar_total_segments: SEGMENTS,
        sar_segment_seqnum: 1,
      });
      if (!resp) {
        unanswered++;
        if (exited || closed) return;
        continue;
      }
      answered++;
      statuses.set(resp.command_status, (statuses.get(resp.command_status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, one));
}

/** The other tenant, from 127.0.0.3: a new connection, bind_transceiver, enquire_link; ms or why not. */
async function otherBind(): Promise<string> {
  const started = performance.now();
  const s = await connect(smppPort, '127.0.0.3').catch((e: Error) => e);
  if (s instanceof Error) return `no connection (${s.message})`;
  try {
    const b = await request(s, 'bind_transceiver', {
      system_id: other.credential.system_id,
      password: other.password,
    });
    if (!b) return 'bind unanswered (5 s)';
    if (b.command_status !== 0) return `bind refused ${b.command_status}`;
    const e = await request(s, 'enquire_link', {});
    if (!e) return 'enquire_link unanswered';
    return `ok ${fmt(performance.now() - started, 0)} ms`;
  } finally {
    s.destroy();
  }
}

let stop = false;
const started = Date.now();
const sessions: Session[] = [];
const floods: Promise<void>[] = [];
for (let b = 0; b < BINDS; b++) {
  const s = await connect(smppPort, '127.0.0.2');
  s.on('error', () => {});
  sessions.push(s);
  floods.push(flood(s, b).catch((e: Error) => console.log(`flood bind ${b}: ${e.message}`)));
}
const otherResults: string[] = [];
const done = Promise.all(floods);
let finished = false;
void done.then(() => {
  finished = true;
});
console.log('  s   RSS      heap     answered  statuses                         other tenant');
while (!finished && !exited && Date.now() - started < SECONDS * 1000) {
  const o = await Promise.race([otherBind(), sleep(6000).then(() => 'no answer (6 s)')]);
  otherResults.push(o);
  const st = [...statuses].map(([k, v]) => `0x${k.toString(16)}:${v}`).join(' ');
  console.log(
    `${String(Math.round((Date.now() - started) / 1000)).padStart(3)}   ${mb(mem.rss).padEnd(8)} ${mb(mem.heap).padEnd(8)} ${String(answered).padEnd(9)} ${`${st} ${unanswered ? `timed out:${unanswered}` : ''}`.padEnd(32)} ${o}`,
  );
  await sleep(1000);
}
stop = true;
await Promise.race([done, sleep(6000)]);
await sleep(500);
const alive = !exited;
console.log(
  `\nsent ${sent}, answered ${answered} (${[...statuses].map(([k, v]) => `0x${k.toString(16)}: ${v}`).join(', ')}), unanswered ${unanswered}`,
);
console.log(
  `peak RSS ${mb(peak.rss)}, peak heap ${mb(peak.heap)} (at rest: ${mb(baseline.rss)}, ${mb(baseline.heap)})`,
);
console.log(
  `other tenant's binds: ${otherResults.filter((r) => r.startsWith('ok')).length} of ${otherResults.length} answered`,
);
console.log(alive ? 'the service is alive' : `the service DIED (${exited}): ${lastError}`);
for (const s of sessions) s.destroy();
if (alive) {
  child.kill('SIGTERM');
  await Promise.race([new Promise((r) => child.once('exit', r)), sleep(10_000)]);
  if (!exited) child.kill('SIGKILL');
}
await database.stop();
process.exit(0);
