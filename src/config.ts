import { isIP } from 'node:net';
import path from 'node:path';
import { parseKey } from './crypto/secret-box.ts';
import { DB_TIMEOUTS, type DbTimeouts } from './db/client.ts';
import { type PriceTable, parsePriceTable } from './messaging/pricing.ts';

/** Typed service configuration, read from the environment once at start-up. */
export interface Config {
  port: number;
  externalsPort: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  publicUrl: string;
  externalsUrl: string;
  rateLimitPerMinute: number;
  webhooksAllowPrivate: boolean;
  quietHoursEnabled: boolean;
  bootstrap: {
    accountId?: string;
    clientId?: string;
    clientSecret?: string;
    adminEmail?: string;
    adminPassword?: string;
  };
  /** Console sign-in: session length, lock-out after failed sign-ins, invitation links. */
  console: {
    sessionHours: number;
    maxFailedSignIns: number;
    lockMinutes: number;
    invitationHours: number;
    /** Failed sign-ins one client address may make per minute, before any password is hashed. */
    signInFailuresPerMinute: number;
  };
  simulatorDeliveryDelayMs: number;
  /** Price per segment by destination country (PRICE_TABLE over the built-in rates). */
  priceTable: PriceTable;
  /** How long a dispatcher's claim on a batch lasts before another worker may take it over. */
  dispatchLeaseSeconds: number;
  /** How often queued messages whose validity period ended are failed and refunded (docs/encoding.md). */
  messageExpirySweepSeconds: number;
  /** Contacts a bulk contact operation changes per transaction (BULK_CHUNK_SIZE). */
  bulkChunkSize: number;
  /**
   * Time partitions of messages, events and webhook deliveries (docs/scaling.md): months created
   * ahead (PARTITION_MONTHS_AHEAD) and whole months dropped once they ended more than
   * MESSAGE_RETENTION_DAYS ago (0: kept for ever).
   */
  partitions: { monthsAhead: number; retentionDays: number };
  tokenTtlSeconds: number;
  /** Twilio-compatible provider settings (used by numbers whose provider is `twilio`). */
  twilio: { baseUrl: string; accountSid: string; authToken: string };
  /** SMPP provider settings (used by numbers whose provider is `smpp`). */
  smpp: {
    url: string;
    systemId: string;
    password: string;
    windowSize: number;
    /** SMPP_MAX_PER_SECOND: most submit_sm a second on the bind (0: no cap). */
    maxPerSecond: number;
  };
  /** SMPP server for customers' ESMEs (docs/smpp-server.md); port 0: off. */
  smppServer: SmppServerConfig;
  /** Payments for checkout and auto top-up: the simulator (default) or a Stripe-compatible REST API. */
  payments: PaymentsConfig;
  logLevel: string;
  /** Run the background workers in this process. */
  workers: boolean;
  /** NODE_ENV=production: closes what is meant for development (simulator endpoints, simulated payments). */
  production: boolean;
  /** The simulator's public endpoints (inbound texts, calls, checkout pages) are mounted: SIMULATOR_ENDPOINTS. */
  simulatorEndpoints: boolean;
  /** SIMULATOR_SECRET: when set, every simulator request must carry it in X-Simulator-Secret. */
  simulatorSecret: string;
  /** Requests per client address per minute on the public listener, by route family. */
  publicRateLimits: PublicRateLimits;
  /** Confirmation texts anonymous submissions may make an account pay for, per form / event type an hour. */
  anonymousTextsPerHour: { form: number; booking: number };
  /** TRUST_PROXY, as Fastify's trustProxy: false, true (any peer), or the proxies' addresses/CIDRs. */
  trustProxy: boolean | string;
  /** Database timeouts (DB_CONNECT_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS, DB_BULK_STATEMENT_TIMEOUT_MS). */
  db: DbTimeouts;
  /** SECRETS_KEY: encrypts signing keys and webhook secrets at rest; SECRETS_KEY_PREVIOUS still opens old ones. */
  secretsKey?: Buffer;
  secretsKeyPrevious?: Buffer;
  /**
   * DELIVERY_GUARANTEE: what to do with a message whose submission's fate is unknown (its worker
   * died with it in flight) when the provider cannot be asked: resend it, or fail and refund it.
   */
  deliveryGuarantee: 'at-least-once' | 'at-most-once';
  /** AUTORESPONDER_WINDOW_MINUTES: an autoresponder answers one contact at most once in this many minutes. */
  autoresponderWindowMinutes: number;
  /** Hosted files (POST /v1/tools/sharefile): SHAREFILE_MAX_BYTES, SHAREFILE_TTL_HOURS, SHAREFILE_QUOTA_BYTES. */
  sharefile: SharefileConfig;
  /** S3_*: an S3-compatible object store for hosted files; unset, they are kept under DATA_DIR/files. */
  s3?: S3Config;
  /**
   * Prometheus metrics: METRICS_PORT (a listener of its own serving GET /metrics; 0: none) and
   * METRICS_TOKEN (GET /metrics on the API listener too; required by both when set). Off by default.
   */
  metrics: { port: number; token: string };
}

/** Limits of hosted files (docs/files.md). */
export interface SharefileConfig {
  /** Largest file accepted, in bytes (413 FILE-003 above). */
  maxBytes: number;
  /** How long a link serves its file. */
  ttlHours: number;
  /** Bytes of unexpired files one account may hold (413 FILE-006 above). */
  quotaBytes: number;
}

/** An S3-compatible bucket (AWS S3, MinIO, Ceph, R2...) for hosted files. */
export interface S3Config {
  bucket: string;
  region: string;
  /** S3_ENDPOINT: the store's URL; unset, AWS's own for the region. */
  endpoint?: string;
  /** S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY; unset, the SDK's default credential chain. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** S3_FORCE_PATH_STYLE: bucket in the path (MinIO and most self-hosted stores) rather than the host name. */
  forcePathStyle: boolean;
}

/** SMPP_SERVER_*: the SMPP server's listener and limits. */
export interface SmppServerConfig {
  /** SMPP_SERVER_PORT: 0 (the default) leaves the server off. */
  port: number;
  /** SMPP_SERVER_TLS_CERT / SMPP_SERVER_TLS_KEY: PEM files; the listener speaks TLS when both are set. */
  tlsCert?: string;
  tlsKey?: string;
  /** SMPP_SERVER_WINDOW: most submit_sm one bind may have unanswered. */
  window: number;
  /** SMPP_SERVER_THROUGHPUT: submit_sm a second of a new credential (when it is not given one). */
  throughput: number;
  /** SMPP_SERVER_KEEP_HOURS: receipts and inbound texts wait this long for a receiver bind. */
  keepHours: number;
}

function smppServer(env: NodeJS.ProcessEnv): SmppServerConfig {
  const tlsCert = env.SMPP_SERVER_TLS_CERT || undefined;
  const tlsKey = env.SMPP_SERVER_TLS_KEY || undefined;
  if (Boolean(tlsCert) !== Boolean(tlsKey)) {
    throw new ConfigError('SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY go together: set both or neither');
  }
  return {
    port: int(env, 'SMPP_SERVER_PORT', 0, 0, 65535),
    tlsCert,
    tlsKey,
    window: int(env, 'SMPP_SERVER_WINDOW', 50, 1, 10_000),
    throughput: int(env, 'SMPP_SERVER_THROUGHPUT', 100, 1, 100_000),
    keepHours: int(env, 'SMPP_SERVER_KEEP_HOURS', 72, 1, 24 * 365),
  };
}

/** Per-IP budgets (requests a minute) of the public listener's route families. */
export interface PublicRateLimits {
  forms: number;
  bookings: number;
  links: number;
  callbacks: number;
  simulator: number;
  files: number;
}

export class ConfigError extends Error {}

function int(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    return new URL(raw).toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
}

/** PAYMENTS_PROVIDER (`none` | `simulator` | `stripe`), STRIPE_API_BASE, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET. */
export interface PaymentsConfig {
  provider: 'none' | 'simulator' | 'stripe';
  stripeApiBase: string;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
}

function payments(env: NodeJS.ProcessEnv, production: boolean): PaymentsConfig {
  // Simulated payments credit real balances: in production they must be chosen explicitly.
  const provider = env.PAYMENTS_PROVIDER || (production ? 'none' : 'simulator');
  if (provider !== 'none' && provider !== 'simulator' && provider !== 'stripe') {
    throw new ConfigError(`PAYMENTS_PROVIDER must be none, simulator or stripe, got "${provider}"`);
  }
  const stripeSecretKey = env.STRIPE_SECRET_KEY || '';
  const stripeWebhookSecret = env.STRIPE_WEBHOOK_SECRET || '';
  if (provider === 'stripe' && (!stripeSecretKey || !stripeWebhookSecret)) {
    throw new ConfigError('PAYMENTS_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
  }
  return {
    provider,
    stripeApiBase: url(env, 'STRIPE_API_BASE', 'https://api.stripe.com'),
    stripeSecretKey,
    stripeWebhookSecret,
  };
}

function prices(env: NodeJS.ProcessEnv): PriceTable {
  try {
    return parsePriceTable(env.PRICE_TABLE);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** SIMULATOR_ENDPOINTS and SIMULATOR_SECRET: open in development, closed in production unless asked for. */
function simulator(env: NodeJS.ProcessEnv, production: boolean) {
  const simulatorEndpoints = bool(env, 'SIMULATOR_ENDPOINTS', !production);
  const simulatorSecret = env.SIMULATOR_SECRET || '';
  if (production && simulatorEndpoints && !simulatorSecret) {
    throw new ConfigError(
      'SIMULATOR_ENDPOINTS=true in production needs SIMULATOR_SECRET (callers send it in X-Simulator-Secret)',
    );
  }
  return { simulatorEndpoints, simulatorSecret };
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function trustProxy(env: NodeJS.ProcessEnv): boolean | string {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '') return false;
  if (/^(true|false|yes|no|on|off)$/i.test(raw)) return bool(env, 'TRUST_PROXY', false);
  for (const entry of raw.split(',').map((e) => e.trim())) {
    const [address, bits, extra] = entry.split('/');
    const valid =
      PROXY_NAMES.has(entry) ||
      (extra === undefined && isIP(address) !== 0 && (bits === undefined || /^\d{1,3}$/.test(bits)));
    if (!valid) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false or proxy addresses/CIDRs separated by commas, got "${raw}"`,
      );
    }
  }
  return raw;
}

/** DATABASE_URL, when set, must be a postgres:// (or postgresql://) URL. */
function databaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.DATABASE_URL;
  if (!raw) return undefined;
  let ok = false;
  try {
    ok = ['postgres:', 'postgresql:'].includes(new URL(raw).protocol);
  } catch {}
  if (!ok) {
    throw new ConfigError(
      'DATABASE_URL must be a URL such as postgres://user:password@host:5432/database (got a value that is not one)',
    );
  }
  return raw;
}

/** Account ids are UUIDs (the database column's type): an id of another shape is refused up front. */
function uuid(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(raw)) {
    throw new ConfigError(
      `${name} must be a UUID such as 01937c1e-0000-7000-8000-000000000001 (account ids are UUIDs), got "${raw}"`,
    );
  }
  return raw.toLowerCase();
}

function key32(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const key = parseKey(raw);
  if (!key) {
    throw new ConfigError(
      `${name} must be 32 bytes as 64 hex digits or base64 (e.g. \`openssl rand -base64 32\`), got ${raw.length} characters`,
    );
  }
  return key;
}

function deliveryGuarantee(env: NodeJS.ProcessEnv): Config['deliveryGuarantee'] {
  const raw = env.DELIVERY_GUARANTEE || 'at-least-once';
  if (raw !== 'at-least-once' && raw !== 'at-most-once') {
    throw new ConfigError(`DELIVERY_GUARANTEE must be at-least-once or at-most-once, got "${raw}"`);
  }
  return raw;
}

function s3(env: NodeJS.ProcessEnv): S3Config | undefined {
  const bucket = env.S3_BUCKET || '';
  const endpoint = env.S3_ENDPOINT ? url(env, 'S3_ENDPOINT', '') : undefined;
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if (!bucket) {
    if (endpoint || accessKeyId || secretAccessKey)
      throw new ConfigError(
        'S3_ENDPOINT and S3_ACCESS_KEY_ID need S3_BUCKET (the bucket hosted files go to)',
      );
    return undefined;
  }
  if (!accessKeyId !== !secretAccessKey)
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither');
  return {
    bucket,
    region: env.S3_REGION || 'us-east-1',
    endpoint,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
  };
}

/** DATABASE_POOLER: `none`, or `transaction` when DATABASE_URL leads to a transaction-pooling PgBouncer. */
function pooler(env: NodeJS.ProcessEnv): 'none' | 'transaction' {
  const raw = env.DATABASE_POOLER || 'none';
  if (raw !== 'none' && raw !== 'transaction') {
    throw new ConfigError(`DATABASE_POOLER must be none or transaction, got "${raw}"`);
  }
  return raw;
}

function metricsConfig(env: NodeJS.ProcessEnv): Config['metrics'] {
  const token = env.METRICS_TOKEN || '';
  if (token && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError(
      'METRICS_TOKEN must be at least 16 characters without spaces (e.g. `openssl rand -hex 24`)',
    );
  }
  return { port: int(env, 'METRICS_PORT', 0, 0, 65535), token };
}

/** Reads and validates the configuration; throws ConfigError with a readable message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const externalsPort = int(env, 'EXTERNALS_PORT', 3001, 0, 65535);
  const production = env.NODE_ENV === 'production';
  return {
    port,
    externalsPort,
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: databaseUrl(env),
    redisUrl: env.REDIS_URL || undefined,
    publicUrl: url(env, 'PUBLIC_URL', `http://localhost:${port}`),
    externalsUrl: url(env, 'EXTERNALS_URL', `http://localhost:${externalsPort}`),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 1),
    webhooksAllowPrivate: bool(env, 'WEBHOOKS_ALLOW_PRIVATE', false),
    quietHoursEnabled: bool(env, 'QUIET_HOURS_ENABLED', true),
    bootstrap: {
      accountId: uuid(env, 'BOOTSTRAP_ACCOUNT_ID'),
      clientId: env.BOOTSTRAP_CLIENT_ID || undefined,
      clientSecret: env.BOOTSTRAP_CLIENT_SECRET || undefined,
      adminEmail: env.BOOTSTRAP_ADMIN_EMAIL?.trim().toLowerCase() || undefined,
      adminPassword: env.BOOTSTRAP_ADMIN_PASSWORD || undefined,
    },
    console: {
      sessionHours: int(env, 'CONSOLE_SESSION_HOURS', 12, 1, 720),
      maxFailedSignIns: int(env, 'CONSOLE_MAX_FAILED_SIGN_INS', 5, 1, 100),
      lockMinutes: int(env, 'CONSOLE_LOCK_MINUTES', 15, 1, 1440),
      invitationHours: int(env, 'CONSOLE_INVITATION_HOURS', 72, 1, 720),
      signInFailuresPerMinute: int(env, 'CONSOLE_SIGN_IN_FAILURES_PER_MINUTE', 20, 1),
    },
    simulatorDeliveryDelayMs: int(env, 'SIMULATOR_DELIVERY_DELAY_MS', 200, 0),
    priceTable: prices(env),
    dispatchLeaseSeconds: int(env, 'DISPATCH_LEASE_SECONDS', 30, 1, 3600),
    messageExpirySweepSeconds: int(env, 'MESSAGE_EXPIRY_SWEEP_SECONDS', 5, 1, 3600),
    bulkChunkSize: int(env, 'BULK_CHUNK_SIZE', 1000, 1, 10_000),
    partitions: {
      monthsAhead: int(env, 'PARTITION_MONTHS_AHEAD', 3, 1, 24),
      retentionDays: int(env, 'MESSAGE_RETENTION_DAYS', 0, 0, 36_500),
    },
    tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 3600, 60, 86400),
    twilio: {
      baseUrl: url(env, 'TWILIO_BASE_URL', 'https://api.twilio.com'),
      accountSid: env.TWILIO_ACCOUNT_SID || '',
      authToken: env.TWILIO_AUTH_TOKEN || '',
    },
    smpp: {
      url: env.SMPP_URL || '',
      systemId: env.SMPP_SYSTEM_ID || '',
      password: env.SMPP_PASSWORD || '',
      windowSize: int(env, 'SMPP_WINDOW_SIZE', 10, 1, 1000),
      maxPerSecond: int(env, 'SMPP_MAX_PER_SECOND', 100, 0, 1_000_000),
    },
    smppServer: smppServer(env),
    payments: payments(env, production),
    logLevel: env.LOG_LEVEL || 'info',
    workers: bool(env, 'WORKERS', true),
    production,
    ...simulator(env, production),
    publicRateLimits: {
      forms: int(env, 'PUBLIC_RATE_LIMIT_FORMS', 60, 1),
      bookings: int(env, 'PUBLIC_RATE_LIMIT_BOOKINGS', 60, 1),
      links: int(env, 'PUBLIC_RATE_LIMIT_LINKS', 600, 1),
      callbacks: int(env, 'PUBLIC_RATE_LIMIT_CALLBACKS', 12_000, 1),
      simulator: int(env, 'PUBLIC_RATE_LIMIT_SIMULATOR', 600, 1),
      files: int(env, 'PUBLIC_RATE_LIMIT_FILES', 6000, 1),
    },
    anonymousTextsPerHour: {
      form: int(env, 'FORM_CONFIRMATIONS_PER_HOUR', 100, 0),
      booking: int(env, 'BOOKING_TEXTS_PER_HOUR', 100, 0),
    },
    trustProxy: trustProxy(env),
    db: {
      connectMs: int(env, 'DB_CONNECT_TIMEOUT_MS', DB_TIMEOUTS.connectMs, 100, 600_000),
      statementMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', DB_TIMEOUTS.statementMs, 0, 86_400_000),
      bulkStatementMs: int(env, 'DB_BULK_STATEMENT_TIMEOUT_MS', DB_TIMEOUTS.bulkStatementMs, 0, 86_400_000),
      pooler: pooler(env),
    },
    secretsKey: key32(env, 'SECRETS_KEY'),
    secretsKeyPrevious: key32(env, 'SECRETS_KEY_PREVIOUS'),
    deliveryGuarantee: deliveryGuarantee(env),
    autoresponderWindowMinutes: int(env, 'AUTORESPONDER_WINDOW_MINUTES', 60, 1, 525_600),
    sharefile: {
      maxBytes: int(env, 'SHAREFILE_MAX_BYTES', 5_242_880, 1, 1024 * 1024 * 1024),
      ttlHours: int(env, 'SHAREFILE_TTL_HOURS', 168, 1, 24 * 366),
      quotaBytes: int(env, 'SHAREFILE_QUOTA_BYTES', 104_857_600, 1),
    },
    s3: s3(env),
    metrics: metricsConfig(env),
  };
}
