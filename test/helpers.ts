/**
 * Test support: a service on a database of its own (cloned from the migrated template the test
 * command prepared), accounts with API clients and tokens, and HTTP calls through inject.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type Config, loadConfig } from '../src/config.ts';
import { type AppContext, createContext } from '../src/context.ts';
import { createPool, type Db } from '../src/db/client.ts';
import { insertPhoneNumber } from '../src/db/queries/phone-numbers.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { channelsFor } from '../src/domain/numbers/channels.ts';
import { buildApiApp, buildExternalsApp, type LoggerOption } from '../src/http/app.ts';
import { lazySchemaController } from '../src/http/lazy-schemas.ts';
import { RATE_LIMIT_WINDOW_MS } from '../src/http/rate-limiter.ts';
import { newId } from '../src/util/ids.ts';
import { startWorkers, type WorkerTask } from '../src/workers/index.ts';

const ADMIN_URL = process.env.SPARROW_TEST_ADMIN_URL;
const TEMPLATE = process.env.SPARROW_TEST_TEMPLATE;
const PREFIX = process.env.SPARROW_TEST_PREFIX ?? 'sparrow_t_x_';

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Creates a fresh database cloned from the migrated template; answers its URL and a dropper. */
export async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!ADMIN_URL || !TEMPLATE) throw new Error('run the tests with `npm test` (it prepares the database)');
  const name = `${PREFIX}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
        break;
      } catch (err) {
        // Two files cloning the template at the same instant: try again shortly.
        if (attempt > 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(ADMIN_URL, name),
    drop: async () => {
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await a.end();
    },
  };
}

/** A test account: ids, credentials, a token with every scope, and headers that carry it. */
export interface TestAccount {
  accountId: string;
  clientId: string;
  clientSecret: string;
  token: string;
  auth: { authorization: string };
}

/** A running service under test. */
export interface TestService {
  api: FastifyInstance;
  externals: FastifyInstance;
  ctx: AppContext;
  db: Db;
  config: Config;
  /** A new account (with its default group and simulator number) and a token for it. */
  newAccount(opts?: { balance?: number; scopes?: string[] }): Promise<TestAccount>;
  /** Starts worker tasks (all by default) until close. */
  startWorkers(tasks?: WorkerTask[]): void;
  close(): Promise<void>;
}

/** Budgets no ordinary test reaches: the tests of the public listener's limits set their own. */
const UNLIMITED_PUBLIC = {
  forms: 1e6,
  bookings: 1e6,
  links: 1e6,
  callbacks: 1e6,
  simulator: 1e6,
  files: 1e6,
};

/**
 * Starts the service on a fresh database. Workers do not run unless started. `opts.env` is added
 * to the environment the configuration is read from (e.g. `{NODE_ENV: 'production'}`), before the
 * overrides apply.
 */
export async function startTestService(
  overrides: Partial<Config> = {},
  opts: { env?: Record<string, string>; logger?: LoggerOption } = {},
): Promise<TestService> {
  const database = await freshDatabase();
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env, DATABASE_URL: database.url };
  // Secrets hashed at scrypt's least cost (SECRET_HASH_COST 10, not 15: a test account's client
  // took ~60 ms of CPU, ~9 % of a whole run's); production refuses it, and keeps its default.
  const loaded = loadConfig(env.NODE_ENV === 'production' ? env : { SECRET_HASH_COST: '10', ...env });
  const config: Config = {
    ...loaded,
    // The sweeps and fuzzers post many failing sign-ins from one address: the tests of the
    // per-address budget set their own.
    console: { ...loaded.console, signInFailuresPerMinute: 1e6 },
    webhooksAllowPrivate: true,
    simulatorDeliveryDelayMs: 20,
    // Campaign sends would otherwise wait for 8:00 whenever a run happens at night (UTC accounts):
    // the tests of quiet hours turn them on.
    quietHoursEnabled: false,
    publicRateLimits: UNLIMITED_PUBLIC,
    // With REDIS_URL (CI's second pass), each test service counts its budgets under its own keys:
    // a client address's (127.0.0.1's) would otherwise be spent by every file running at once.
    redisKeyPrefix: new URL(database.url).pathname.slice(1),
    // Test traffic stays on this machine: the CRMs' default API bases are hosts on the internet
    // (the integrations tests point these at their local servers).
    crm: { hubspotBase: 'http://127.0.0.1:9', pipedriveBase: 'http://127.0.0.1:9' },
    ...overrides,
  };
  // 10 connections, as a worker's: the dispatcher runs three lanes and the express lane.
  const db = createPool(database.url, 10);
  const ctx = createContext(config, db);
  // Schemas compile on first use, as in the service (about 2 s of CPU saved per test file);
  // test/http/lazy-schemas.test.ts compiles every one of them and compares with an eager app.
  const lazySchemas = lazySchemaController();
  const api = await buildApiApp(ctx, { logger: opts.logger, lazySchemas });
  const externals = await buildExternalsApp(ctx, { logger: opts.logger, lazySchemas });
  const workers: { stop: () => Promise<void> }[] = [];
  return {
    api,
    externals,
    ctx,
    db,
    config,
    async newAccount(opts = {}) {
      const { account } = await createAccount(db, {
        name: `Test ${randomBytes(3).toString('hex')}`,
        balance: opts.balance,
      });
      const { client, secret } = await createClient(db, account.id, {
        name: 'Test client',
        scopes: opts.scopes,
        hashCost: config.secretHashCost,
      });
      const token = await ctx.tokens.issue(
        { id: client.id, name: client.name, accountId: account.id },
        client.scopes,
      );
      return {
        accountId: account.id,
        clientId: client.id,
        clientSecret: secret,
        token,
        auth: { authorization: `Bearer ${token}` },
      };
    },
    startWorkers(tasks) {
      workers.push(startWorkers(ctx, tasks));
    },
    async close() {
      for (const w of workers) await w.stop();
      await api.close();
      await externals.close();
      await ctx.close();
      await db.end();
      await database.drop();
    },
  };
}

let providerNumberSeq = 0;

/**
 * Adds an active number served by `provider` (twilio, smpp) to an account, straight in the
 * database (no provider is asked), and answers it in E.164. Numbers are +1 415 555 2NNN.
 */
export async function addProviderNumber(db: Db, accountId: string, provider: string): Promise<string> {
  const number = `+14155552${String(100 + (providerNumberSeq++ % 900)).padStart(3, '0')}`;
  await insertPhoneNumber(db, accountId, {
    id: newId(),
    number,
    country: 'US',
    type: 'local',
    provider,
    throughputMps: 1,
    channels: channelsFor(['sms']),
    supportedDestinations: ['US'],
    by: { id: 'test', name: 'Test', source: 'api' },
  });
  return number;
}

/** A new account (balance 10) whose number sends at most `mps` messages a second, set over the API. */
export async function accountAt(svc: TestService, mps: number): Promise<TestAccount> {
  const acc = await svc.newAccount({ balance: 10 });
  const numbers = await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, {
    auth: acc.auth,
  });
  const put = await call(
    svc.api,
    'PUT',
    `/v1/accounts/${acc.accountId}/phonenumbers/${body(numbers).data[0].id}`,
    {
      auth: acc.auth,
      json: { throughput: mps },
    },
  );
  if (put.statusCode !== 200) throw new Error(`setting the throughput: ${put.statusCode} ${put.body}`);
  return acc;
}

/** The parsed JSON body of a response (throws on a non-JSON body, which is itself a failure). */
export function body<T = any>(res: LightMyRequestResponse): T {
  return JSON.parse(res.body) as T;
}

/**
 * Shorthand for app.inject with a JSON body: `json` (serialized), or `jsonText` (JSON text sent as
 * is, e.g. a hostile one, with the JSON content type).
 */
export function call(
  app: FastifyInstance,
  method: InjectOptions['method'],
  url: string,
  opts: {
    auth?: Record<string, string>;
    json?: unknown;
    jsonText?: string;
    headers?: Record<string, string>;
    payload?: string;
  } = {},
) {
  const isJson = opts.json !== undefined || opts.jsonText !== undefined;
  return app.inject({
    method,
    url,
    headers: {
      ...(opts.auth ?? {}),
      ...(isJson ? { 'content-type': 'application/json' } : {}),
      ...(opts.headers ?? {}),
    },
    payload: opts.json !== undefined ? JSON.stringify(opts.json) : (opts.jsonText ?? opts.payload),
  });
}

/**
 * The API's and the public listener's limiters count in fixed windows (RATE_LIMIT_WINDOW_MS): calls
 * that must all fall in one window start after waiting out a window with under 5 s left (a boundary
 * between them resets the count).
 */
export async function inOneWindow(): Promise<void> {
  const left = RATE_LIMIT_WINDOW_MS - (Date.now() % RATE_LIMIT_WINDOW_MS);
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 50));
}

/** Polls until fn answers a truthy value or the time runs out. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false | null>,
  timeoutMs = 20_000,
  stepMs = 25,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * `p`, or a failure when it has not settled after `ms` (a generous bound for an answer that never
 * comes, not a timing). The timer is cleared once `p` settles: a pending one would keep the test
 * file's process alive until it fires.
 */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
