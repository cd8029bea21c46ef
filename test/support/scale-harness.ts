/**
 * The scale-out harness behind `npm run bench:scale` and test/scale/scale-out.test.ts: on a fresh
 * database of a real PostgreSQL (optionally through PgBouncer in transaction mode) and Redis, it
 * starts `sparrow api` and `sparrow worker` processes, sends through the Twilio-compatible provider
 * to a local carrier that records every submission (and deduplicates nothing), and counts at the
 * carrier. A client spreads its requests over the APIs and retries connection errors on the next
 * one. During the run it can SIGKILL a worker and restart it, and restart the APIs one after the
 * other with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { ensureBundle } from '../../scripts/bundle.js';
import { createPool, type Db } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createAccount } from '../../src/domain/accounts/create-account.ts';
import { createClient } from '../../src/domain/auth/create-client.ts';
import { twilioSignature } from '../../src/providers/twilio/webhooks.ts';
import { type PgBouncer, startPgBouncer } from './pgbouncer.ts';
import { testPort } from './ports.ts';

const BIN = path.resolve('bin/sparrow.js');
export const SID = `AC${'5'.repeat(32)}`;
export const TWILIO_TOKEN = 'scale-twilio-token';
export const METRICS_TOKEN = 'scale-metrics-token-0123456789';

export interface ScaleOptions {
  /** An admin URL of the PostgreSQL server (a fresh database is created on it and dropped after). */
  adminUrl: string;
  redisUrl: string;
  /** Recipients of the one large send. */
  bulk: number;
  /** Single sends made one after another while the large send runs. */
  singles: number;
  /** Inbound texts posted to the APIs' public listeners while it runs. */
  inbound: number;
  apis: number;
  workers: number;
  /** SIGKILL a worker (and restart it) and restart the APIs one after the other (SIGTERM). */
  chaos: boolean;
  /** Put PgBouncer (transaction pooling) between every process and PostgreSQL. */
  pgbouncer?: boolean;
  /** Messages a second the sending number may send (its `throughput`). */
  throughput?: number;
  /** Longest the run may take before it gives up waiting (ms). */
  timeoutMs?: number;
  log?: (line: string) => void;
  /** Extra environment of every process. */
  env?: Record<string, string>;
}

/** One submission as the carrier recorded it. */
export interface Submission {
  /** The carrier's id for it (what a Messages list shows). */
  sid: string;
  to: string;
  from: string;
  body: string;
  at: number;
}

export interface ScaleResult {
  expected: number;
  submissions: number;
  duplicates: number;
  lost: number;
  /** Submissions a second at the carrier, first to last submission. */
  throughput: number;
  durationMs: number;
  apiRequests: number;
  apiRetries: number;
  p50ApiMs: number;
  p99ApiMs: number;
  webhookEvents: number;
  webhookMissing: number;
  /** webhook-ids received with more than one event id (must be 0). */
  webhookIdMismatches: number;
  webhookRequests: number;
  /** The most submissions of one second at the carrier, over the run. */
  peakPerSecond: number;
  /** Queue depths read from a /metrics scrape during the run. */
  scrapedDuringRun: Record<string, number>;
  chaos: string[];
  /** Messages-list requests at the carrier (reconciliation of uncertain submissions). */
  carrierLookups: number;
  /** Lines the processes logged about failures (a worker round that threw, a database error). */
  processErrors: string[];
  submissionsLog: Submission[];
}

/** A process of the deployment. */
interface Proc {
  kind: 'api' | 'worker';
  env: Record<string, string>;
  child: ChildProcess;
  port?: number;
  externalsPort?: number;
  output: string;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Children still running when this process ends (a test's time limit kills it before its
 * `finally` runs): killed with it, so that no service outlives the run.
 */
const live = new Set<ChildProcess>();
const killLive = () => {
  for (const c of live) c.kill('SIGKILL');
};
process.once('exit', killLive);
for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.once(sig, () => {
    killLive();
    process.exit(1);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs: number, stepMs = 100) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await fn()) return;
    await sleep(stepMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A Twilio-compatible carrier: records every POST, answers after a small delay, dedupes nothing. */
export function startCarrier() {
  const submissions: Submission[] = [];
  let seq = 0;
  let lists = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://carrier');
    const reply = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method === 'GET' && url.pathname === `/2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json`) {
      return reply(200, {
        incoming_phone_numbers: [
          {
            sid: 'PN1',
            phone_number: url.searchParams.get('PhoneNumber') ?? '',
            capabilities: { sms: true },
          },
        ],
      });
    }
    if (url.pathname !== `/2010-04-01/Accounts/${SID}/Messages.json`) return reply(404, { code: 20404 });
    if (req.method === 'GET') {
      // Reconciliation after a killed worker: list by To (and From), oldest first, one page.
      lists++;
      const to = url.searchParams.get('To');
      const from = url.searchParams.get('From');
      const matching = submissions.filter((s) => (!to || s.to === to) && (!from || s.from === from));
      return reply(200, {
        messages: matching.map((s) => ({
          sid: s.sid,
          to: s.to,
          from: s.from,
          body: s.body,
          status: 'sent',
          date_created: new Date(s.at).toUTCString(),
          date_sent: new Date(s.at).toUTCString(),
        })),
        next_page_uri: null,
      });
    }
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      const s: Submission = {
        sid: `SM${(++seq).toString(16).padStart(32, '0')}`,
        to: form.get('To') ?? '',
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        at: Date.now(),
      };
      submissions.push(s);
      const sid = s.sid;
      setTimeout(
        () => {
          if (!res.destroyed)
            reply(201, { sid, to: s.to, from: s.from, body: s.body, status: 'queued', account_sid: SID });
        },
        2 + Math.random() * 20,
      );
    });
  });
  server.keepAliveTimeout = 30_000;
  return {
    submissions,
    lists: () => lists,
    async listen() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

/** The webhook receiver: every request's webhook-id and the event id in its body. */
function startReceiver() {
  const ids = new Map<string, Set<string>>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      requests++;
      const id = String(req.headers['webhook-id'] ?? '');
      let eventId = '';
      try {
        eventId = JSON.parse(raw).eventId;
      } catch {}
      const set = ids.get(id) ?? new Set<string>();
      set.add(eventId);
      ids.set(id, set);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  return {
    ids,
    requests: () => requests,
    async listen() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

/** A fresh, migrated database on the server of `adminUrl`; dropped by `drop`. */
export async function scaleDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  // Under `npm test` the test command's prefix, so that its clean-up drops what a killed run left.
  const prefix = process.env.SPARROW_TEST_PREFIX
    ? `${process.env.SPARROW_TEST_PREFIX}scale_`
    : 'sparrow_scale_';
  const name = `${prefix}${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  await migrate(u.toString());
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await a.end();
    },
  };
}

/** Runs one scale scenario end to end; cleans up whatever happens. */
export async function runScale(opts: ScaleOptions): Promise<ScaleResult> {
  const log = opts.log ?? (() => {});
  const timeoutMs = opts.timeoutMs ?? 600_000;
  await ensureBundle();
  const carrier = startCarrier();
  const receiver = startReceiver();
  const carrierUrl = await carrier.listen();
  const hookUrl = await receiver.listen();
  const database = await scaleDatabase(opts.adminUrl);
  let bouncer: PgBouncer | undefined;
  const procs: Proc[] = [];
  let db: Db | undefined;
  const chaos: string[] = [];
  try {
    let serviceUrl = database.url;
    if (opts.pgbouncer) {
      bouncer = await startPgBouncer(database.url);
      serviceUrl = bouncer.url;
      log(`PgBouncer (transaction pooling) on port ${bouncer.port}`);
    }
    db = createPool(database.url, 4);
    const { account } = await createAccount(db, { name: 'scale', balance: (opts.bulk + opts.singles) * 2 });
    const { client, secret } = await createClient(db, account.id);
    // Contacts of the large send: set-based, each with a text of its own (duplicates are visible by To+Body).
    await db.query(
      `INSERT INTO contacts (account_id, id, first_name, last_name, mobile_number, mobile_country, mobile_valid,
                             mobile_line_type, tags)
       SELECT $1, sparrow_uuidv7(), 'P' || i, 'Scale', '+1201' || lpad(i::text, 7, '0'), 'US', true, 'mobile',
              '[{"tag": "bulk", "visible": true}]'
       FROM generate_series(1, $2) AS i`,
      [account.id, opts.bulk],
    );
    await db.query('ANALYZE contacts');

    const common: Record<string, string> = {
      DATABASE_URL: serviceUrl,
      ...(opts.pgbouncer ? { DATABASE_POOLER: 'transaction' } : {}),
      REDIS_URL: opts.redisUrl,
      // This deployment's keys in Redis, apart from every other test's sharing the server.
      REDIS_KEY_PREFIX: new URL(database.url).pathname.slice(1),
      TWILIO_BASE_URL: carrierUrl,
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      DISPATCH_LEASE_SECONDS: '3',
      RATE_LIMIT_PER_MINUTE: '1000000',
      METRICS_TOKEN,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      QUIET_HOURS_ENABLED: 'false',
      ...opts.env,
    };
    const spawnProc = (p: Omit<Proc, 'child' | 'output'>): Proc => {
      const child = spawn(process.execPath, [BIN, p.kind], {
        env: { ...process.env, ...common, ...p.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      live.add(child);
      child.once('exit', () => live.delete(child));
      const proc: Proc = { ...p, child, output: '' };
      const keep = (d: Buffer) => {
        proc.output = (proc.output + d).slice(-20_000);
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      return proc;
    };
    const ready = async (p: Proc) =>
      (await fetch(`http://127.0.0.1:${p.port}/readyz`).catch(() => undefined))?.status === 200;
    let publicUrl: string | undefined;
    let externalsUrl: string | undefined;
    const startApi = async (port?: number, externalsPort?: number) => {
      const pp = port ?? (await testPort());
      const ep = externalsPort ?? (await testPort());
      const p = spawnProc({
        kind: 'api',
        port: pp,
        externalsPort: ep,
        env: {
          PORT: String(pp),
          EXTERNALS_PORT: String(ep),
          // The load balancer's addresses, the same on every API: tokens name PUBLIC_URL as their
          // issuer, and carrier signatures cover EXTERNALS_URL (here the first API stands for it).
          PUBLIC_URL: publicUrl ?? `http://127.0.0.1:${pp}`,
          EXTERNALS_URL: externalsUrl ?? `http://127.0.0.1:${ep}`,
        },
      });
      await until(
        `sparrow api on ${pp}`,
        async () => {
          if (p.child.exitCode !== null) throw new Error(`sparrow api exited:\n${p.output}`);
          return ready(p);
        },
        150_000,
      );
      return p;
    };
    const apis: Proc[] = [];
    for (let i = 0; i < opts.apis; i++) {
      apis.push(await startApi());
      publicUrl ??= `http://127.0.0.1:${apis[0].port}`;
      externalsUrl ??= `http://127.0.0.1:${apis[0].externalsPort}`;
    }
    for (const p of apis) procs.push(p);
    const startWorker = () => {
      const w = spawnProc({
        kind: 'worker',
        env: { EXTERNALS_URL: `http://127.0.0.1:${apis[0].externalsPort}` },
      });
      procs.push(w);
      return w;
    };
    const workers: Proc[] = [];

    // --- The client: round-robin over the APIs, a connection error or 503 goes to the next one.
    let rr = 0;
    const latencies: number[] = [];
    let retries = 0;
    let token = '';
    const request = async (
      method: string,
      path: string,
      json?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const end = Date.now() + 120_000;
      for (;;) {
        const api = apis[rr++ % apis.length];
        const t0 = performance.now();
        try {
          const res = await fetch(`http://127.0.0.1:${api.port}${path}`, {
            method,
            headers: {
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
              ...headers,
            },
            body: json === undefined ? undefined : JSON.stringify(json),
            signal: AbortSignal.timeout(60_000),
          });
          const text = await res.text();
          latencies.push(performance.now() - t0);
          // 503: that API is closing (or its database link is down); 409: the same Idempotency-Key
          // is still being answered by the API that was asked first.
          if ((res.status === 503 || res.status === 409) && Date.now() < end) {
            retries++;
            await sleep(50);
            continue;
          }
          return { status: res.status, json: text ? JSON.parse(text) : undefined };
        } catch (err) {
          if (Date.now() >= end) throw err;
          retries++;
          await sleep(20);
        }
      }
    };
    const tokenRes = await request('POST', '/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: secret,
    });
    token = tokenRes.json.access_token;
    if (!token) throw new Error(`no token: ${JSON.stringify(tokenRes.json)}`);
    const numbers = await request('GET', `/v1/accounts/${account.id}/phonenumbers`);
    const number = numbers.json?.data?.[0];
    if (!number) throw new Error(`numbers: ${numbers.status} ${JSON.stringify(numbers.json)}`);
    const put = await request('PUT', `/v1/accounts/${account.id}/phonenumbers/${number.id}`, {
      throughput: opts.throughput ?? 10_000,
      provider: 'twilio',
    });
    if (put.status !== 200) throw new Error(`number: ${put.status} ${JSON.stringify(put.json)}`);
    const hook = await request('POST', `/v1/accounts/${account.id}/webhooks`, {
      url: hookUrl,
      eventTypes: ['message-sent', 'message-received'],
    });
    if (hook.status !== 200) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.json)}`);

    for (let i = 0; i < opts.workers; i++) workers.push(startWorker());
    latencies.length = 0;

    // --- The run.
    const expected = new Set<string>();
    const t0 = Date.now();
    const bulk = await request('POST', `/v1/accounts/${account.id}/messages`, {
      filters: { tags: ['bulk'] },
      template: 'Bulk {{{firstName}}}',
    });
    if (bulk.status !== 200 || bulk.json.data.queued !== opts.bulk)
      throw new Error(`bulk send: ${bulk.status} ${JSON.stringify(bulk.json)}`);
    for (let i = 1; i <= opts.bulk; i++) expected.add(`+1201${String(i).padStart(7, '0')}\u0000Bulk P${i}`);
    log(`bulk send of ${opts.bulk} accepted in ${Date.now() - t0} ms`);

    let streaming = true;
    const singles = (async () => {
      for (let i = 0; i < opts.singles && streaming; i++) {
        const to = `+1202555${String(i % 10_000).padStart(4, '0')}`;
        const res = await request(
          'POST',
          `/v1/accounts/${account.id}/messages`,
          { contacts: [{ mobile: { number: to } }], template: `Single ${i}` },
          { 'idempotency-key': `single-${i}` },
        );
        if (res.status !== 200)
          throw new Error(`single send ${i}: ${res.status} ${JSON.stringify(res.json)}`);
        expected.add(`${to}\u0000Single ${i}`);
        await sleep(20);
      }
    })();
    const inbound = (async () => {
      for (let i = 0; i < opts.inbound; i++) {
        const params = {
          MessageSid: `SMin${String(i).padStart(30, '0')}`,
          AccountSid: SID,
          From: `+1312555${String(i % 10_000).padStart(4, '0')}`,
          To: number.number,
          Body: `Inbound ${i}`,
          NumMedia: '0',
        };
        const form = new URLSearchParams(params).toString();
        for (let attempt = 0; ; attempt++) {
          const api = apis[rr++ % apis.length];
          const url = `http://127.0.0.1:${api.externalsPort}/v1/providers/twilio/inbound`;
          const res = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              'x-twilio-signature': twilioSignature(
                TWILIO_TOKEN,
                `${externalsUrl}/v1/providers/twilio/inbound`,
                params,
              ),
            },
            body: form,
          }).catch(() => undefined);
          if (res?.status === 200) break;
          if (res && res.status >= 400 && res.status < 500)
            throw new Error(`inbound ${i}: ${res.status} ${await res.text()}`);
          if (attempt > 600) throw new Error(`inbound ${i}: ${res?.status}`);
          retries++;
          await sleep(50);
        }
        await sleep(40);
      }
    })();

    // --- Chaos, driven by the carrier's count.
    let scraped: Record<string, number> = {};
    const chaosRun = (async () => {
      const at = (share: number) =>
        until(
          `${share * 100}% of the send`,
          () => carrier.submissions.length >= opts.bulk * share,
          timeoutMs,
          20,
        );
      if (!opts.chaos) return;
      await at(0.2);
      const victim = workers[0];
      victim.child.kill('SIGKILL');
      await new Promise((r) =>
        victim.child.exitCode !== null || victim.child.signalCode ? r(null) : victim.child.once('exit', r),
      );
      chaos.push(`SIGKILL worker at ${carrier.submissions.length} submissions`);
      log(chaos.at(-1)!);
      await sleep(500);
      workers[0] = startWorker();
      chaos.push('worker restarted');
      await at(0.35);
      scraped = await scrapeQueues(apis[1].port!);
      for (let i = 0; i < apis.length; i++) {
        const old = apis[i];
        old.child.kill('SIGTERM');
        await new Promise((r) => (old.child.exitCode !== null ? r(null) : old.child.once('exit', r)));
        chaos.push(
          `SIGTERM api ${i} at ${carrier.submissions.length} submissions (exit ${old.child.exitCode})`,
        );
        log(chaos.at(-1)!);
        const fresh = await startApi(old.port, old.externalsPort);
        procs.push(fresh);
        apis[i] = fresh;
        chaos.push(`api ${i} back`);
        log(chaos.at(-1)!);
      }
    })();
    await chaosRun;
    await singles;
    await inbound;
    streaming = false;
    if (!opts.chaos) scraped = await scrapeQueues(apis[0].port!);

    // --- Settle: every expected message submitted, nothing queued or in flight, webhooks delivered.
    const settled = async () => {
      const { rows } = await db!.query(
        `SELECT (SELECT count(*) FROM messages WHERE status IN ('queued', 'sending'))::int AS open,
                (SELECT count(*) FROM dispatch_inflight)::int AS inflight,
                (SELECT count(*) FROM webhook_event_queue)::int AS fanout,
                (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS hooks`,
      );
      const r = rows[0];
      return r.open === 0 && r.inflight === 0 && r.fanout === 0 && r.hooks === 0;
    };
    await until('the run to settle', settled, timeoutMs, 250);
    const durationMs = Date.now() - t0;

    // --- Count at the carrier.
    const seen = new Map<string, number>();
    for (const s of carrier.submissions) {
      const key = `${s.to}\u0000${s.body}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    let duplicates = 0;
    for (const n of seen.values()) duplicates += n - 1;
    let lost = 0;
    for (const key of expected) if (!seen.has(key)) lost++;
    const times = carrier.submissions.map((s) => s.at).sort((a, b) => a - b);
    const span = times.length > 1 ? (times[times.length - 1] - times[0]) / 1000 : 0;
    const perSecond = new Map<number, number>();
    for (const t of times)
      perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);

    const events = await db.query<{ id: string }>(
      `SELECT id FROM events WHERE account_id = $1 AND type IN ('message-sent', 'message-received')`,
      [account.id],
    );
    let webhookMissing = 0;
    for (const e of events.rows) if (!receiver.ids.has(e.id)) webhookMissing++;
    let webhookIdMismatches = 0;
    for (const [id, set] of receiver.ids) if (set.size !== 1 || !set.has(id)) webhookIdMismatches++;
    const sorted = latencies.slice().sort((a, b) => a - b);
    return {
      expected: expected.size,
      submissions: carrier.submissions.length,
      duplicates,
      lost,
      throughput: span > 0 ? carrier.submissions.length / span : carrier.submissions.length,
      durationMs,
      apiRequests: latencies.length,
      apiRetries: retries,
      p50ApiMs: percentile(sorted, 50),
      p99ApiMs: percentile(sorted, 99),
      webhookEvents: events.rows.length,
      webhookMissing,
      webhookIdMismatches,
      webhookRequests: receiver.requests(),
      peakPerSecond: Math.max(0, ...perSecond.values()),
      scrapedDuringRun: scraped,
      chaos,
      carrierLookups: carrier.lists(),
      processErrors: procs.flatMap((p) =>
        p.output
          .split('\n')
          .filter((l) => /\b(worker [a-z-]+:|error|prepared statement|startup parameter)/i.test(l)),
      ),
      submissionsLog: carrier.submissions,
    };
  } catch (err) {
    for (const p of procs.slice(-3)) log(`--- ${p.kind} output:\n${p.output.slice(-3000)}`);
    throw err;
  } finally {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
            const kill = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
            p.child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            p.child.kill('SIGTERM');
          }),
      ),
    );
    await db?.end();
    await bouncer?.stop();
    await database.drop();
    await carrier.close();
    await receiver.close();
  }
}

/** Reads the queue gauges from one API's /metrics (METRICS_TOKEN). */
export async function scrapeQueues(port: number): Promise<Record<string, number>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const out: Record<string, number> = {};
  for (const line of (await res.text()).split('\n')) {
    const m = /^sparrow_queue_depth\{queue="([a-z_]+)"\} (\S+)$/.exec(line);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}
