import path from 'node:path';
import { type HttpLimitsConfig, httpLimits } from './config/http-limits.ts';
import { type ProviderInstanceConfig, providerInstances } from './config/providers.ts';
import {
  bool,
  ConfigError,
  databaseUrl,
  deliveryGuarantee,
  int,
  key32,
  pooler,
  prices,
  redisKeyPrefix,
  trustProxy,
  url,
  uuid,
} from './config/read.ts';
import {
  metricsConfig,
  type PaymentsConfig,
  type PublicRateLimits,
  payments,
  type S3Config,
  type SharefileConfig,
  type SmppServerConfig,
  type SmtpConfig,
  s3,
  simulator,
  smppServer,
  smtp,
} from './config/sections.ts';
import { DB_TIMEOUTS, type DbTimeouts } from './db/client.ts';
import type { PriceTable } from './messaging/pricing.ts';

export type { HttpLimitsConfig } from './config/http-limits.ts';
export type { ProviderInstanceConfig, SmppInstanceConfig, TwilioInstanceConfig } from './config/providers.ts';
export { ConfigError } from './config/read.ts';
export type {
  PaymentsConfig,
  PublicRateLimits,
  S3Config,
  SharefileConfig,
  SmppServerConfig,
  SmtpConfig,
} from './config/sections.ts';

/** Typed service configuration, read from the environment once at start-up. */
export interface Config {
  port: number;
  externalsPort: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** What every key the service writes in Redis starts with (REDIS_KEY_PREFIX). */
  redisKeyPrefix: string;
  publicUrl: string;
  externalsUrl: string;
  rateLimitPerMinute: number;
  webhooksAllowPrivate: boolean;
  /** The CRMs' API bases (HUBSPOT_API_BASE, PIPEDRIVE_API_BASE): tests and proxies point them elsewhere. */
  crm: { hubspotBase: string; pipedriveBase: string };
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
  /**
   * Messages handed to one provider and not yet recorded, at most, per process (all lanes together):
   * what a SIGKILL can leave of unknown fate (README, "Exactly once"), and what keeps a link busy
   * while the records of earlier acknowledgements commit (DISPATCH_IN_FLIGHT).
   */
  dispatchInFlight: number;
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
  /** SECRET_HASH_COST: log2 of scrypt's N for new client secrets, passwords and SMPP passwords (domain/auth/secrets.ts). */
  secretHashCost: number;
  /**
   * The built-in Twilio-compatible instance, `twilio` (TWILIO_*). TWILIO_TIMEOUT_MS: how long a
   * request to the provider may take before its fate counts as unknown.
   */
  twilio: { baseUrl: string; accountSid: string; authToken: string; timeoutMs?: number };
  /** The built-in SMPP instance, `smpp` (SMPP_*). */
  smpp: {
    url: string;
    systemId: string;
    password: string;
    windowSize: number;
    /** SMPP_MAX_PER_SECOND: most submit_sm a second on the bind (0: no cap). */
    maxPerSecond: number;
  };
  /** PROVIDERS: more named provider instances (several SMPP carriers, several Twilio accounts). */
  providers: ProviderInstanceConfig[];
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
  /** HTTP_*: connection caps (total and per address) and timeouts of the HTTP listeners. */
  http: HttpLimitsConfig;
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
  /** SMTP_URL and SMTP_FROM: console invitations are e-mailed through this server; unset, the link is only shown. */
  smtp?: SmtpConfig;
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
    redisKeyPrefix: redisKeyPrefix(env),
    publicUrl: url(env, 'PUBLIC_URL', `http://localhost:${port}`),
    externalsUrl: url(env, 'EXTERNALS_URL', `http://localhost:${externalsPort}`),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 1),
    webhooksAllowPrivate: bool(env, 'WEBHOOKS_ALLOW_PRIVATE', false),
    crm: {
      hubspotBase: url(env, 'HUBSPOT_API_BASE', 'https://api.hubapi.com'),
      pipedriveBase: url(env, 'PIPEDRIVE_API_BASE', 'https://api.pipedrive.com'),
    },
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
    dispatchInFlight: int(env, 'DISPATCH_IN_FLIGHT', 256, 64, 10_000),
    messageExpirySweepSeconds: int(env, 'MESSAGE_EXPIRY_SWEEP_SECONDS', 5, 1, 3600),
    bulkChunkSize: int(env, 'BULK_CHUNK_SIZE', 1000, 1, 10_000),
    partitions: {
      monthsAhead: int(env, 'PARTITION_MONTHS_AHEAD', 3, 1, 24),
      retentionDays: int(env, 'MESSAGE_RETENTION_DAYS', 0, 0, 36_500),
    },
    tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 3600, 60, 86400),
    secretHashCost: secretHashCost(env, production),
    twilio: {
      baseUrl: url(env, 'TWILIO_BASE_URL', 'https://api.twilio.com'),
      accountSid: env.TWILIO_ACCOUNT_SID || '',
      authToken: env.TWILIO_AUTH_TOKEN || '',
      timeoutMs: int(env, 'TWILIO_TIMEOUT_MS', 10_000, 100, 120_000),
    },
    smpp: {
      url: env.SMPP_URL || '',
      systemId: env.SMPP_SYSTEM_ID || '',
      password: env.SMPP_PASSWORD || '',
      windowSize: int(env, 'SMPP_WINDOW_SIZE', 10, 1, 1000),
      maxPerSecond: int(env, 'SMPP_MAX_PER_SECOND', 100, 0, 1_000_000),
    },
    providers: providerInstances(env),
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
    http: httpLimits(env),
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
    smtp: smtp(env),
  };
}

/** scrypt's N for new secrets is 2^this by default (SECRET_HASH_COST; domain/auth/secrets.ts). */
export const DEFAULT_SECRET_HASH_COST = 15;

/**
 * SECRET_HASH_COST (10–16, default 15): below the default only outside production, where a test
 * suite hashing hundreds of secrets would otherwise spend minutes of CPU on them.
 */
function secretHashCost(env: NodeJS.ProcessEnv, production: boolean): number {
  const cost = int(env, 'SECRET_HASH_COST', DEFAULT_SECRET_HASH_COST, 10, 16);
  if (production && cost < DEFAULT_SECRET_HASH_COST)
    throw new ConfigError(
      `SECRET_HASH_COST below ${DEFAULT_SECRET_HASH_COST} is refused in production (NODE_ENV=production), got ${cost}`,
    );
  return cost;
}
