import path from 'node:path';
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
  bootstrap: { accountId?: string; clientId?: string; clientSecret?: string };
  simulatorDeliveryDelayMs: number;
  /** Price per segment by destination country (PRICE_TABLE over the built-in rates). */
  priceTable: PriceTable;
  /** How long a dispatcher's claim on a batch lasts before another worker may take it over. */
  dispatchLeaseSeconds: number;
  tokenTtlSeconds: number;
  /** Twilio-compatible provider settings (used by numbers whose provider is `twilio`). */
  twilio: { baseUrl: string; accountSid: string; authToken: string };
  /** SMPP provider settings (used by numbers whose provider is `smpp`). */
  smpp: { url: string; systemId: string; password: string; windowSize: number };
  /** Payments for checkout and auto top-up: the simulator (default) or a Stripe-compatible REST API. */
  payments: PaymentsConfig;
  logLevel: string;
  /** Run the background workers in this process. */
  workers: boolean;
  /**
   * DELIVERY_GUARANTEE: what to do with a message whose submission's fate is unknown (its worker
   * died with it in flight) when the provider cannot be asked: resend it, or fail and refund it.
   */
  deliveryGuarantee: 'at-least-once' | 'at-most-once';
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

/** PAYMENTS_PROVIDER (`simulator` | `stripe`), STRIPE_API_BASE, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET. */
export interface PaymentsConfig {
  provider: 'simulator' | 'stripe';
  stripeApiBase: string;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
}

function payments(env: NodeJS.ProcessEnv): PaymentsConfig {
  const provider = env.PAYMENTS_PROVIDER || 'simulator';
  if (provider !== 'simulator' && provider !== 'stripe') {
    throw new ConfigError(`PAYMENTS_PROVIDER must be simulator or stripe, got "${provider}"`);
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

function deliveryGuarantee(env: NodeJS.ProcessEnv): Config['deliveryGuarantee'] {
  const raw = env.DELIVERY_GUARANTEE || 'at-least-once';
  if (raw !== 'at-least-once' && raw !== 'at-most-once') {
    throw new ConfigError(`DELIVERY_GUARANTEE must be at-least-once or at-most-once, got "${raw}"`);
  }
  return raw;
}

/** Reads and validates the configuration; throws ConfigError with a readable message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const externalsPort = int(env, 'EXTERNALS_PORT', 3001, 0, 65535);
  return {
    port,
    externalsPort,
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    publicUrl: url(env, 'PUBLIC_URL', `http://localhost:${port}`),
    externalsUrl: url(env, 'EXTERNALS_URL', `http://localhost:${externalsPort}`),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 1),
    webhooksAllowPrivate: bool(env, 'WEBHOOKS_ALLOW_PRIVATE', false),
    quietHoursEnabled: bool(env, 'QUIET_HOURS_ENABLED', true),
    bootstrap: {
      accountId: env.BOOTSTRAP_ACCOUNT_ID || undefined,
      clientId: env.BOOTSTRAP_CLIENT_ID || undefined,
      clientSecret: env.BOOTSTRAP_CLIENT_SECRET || undefined,
    },
    simulatorDeliveryDelayMs: int(env, 'SIMULATOR_DELIVERY_DELAY_MS', 200, 0),
    priceTable: prices(env),
    dispatchLeaseSeconds: int(env, 'DISPATCH_LEASE_SECONDS', 30, 1, 3600),
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
    },
    payments: payments(env),
    logLevel: env.LOG_LEVEL || 'info',
    workers: bool(env, 'WORKERS', true),
    deliveryGuarantee: deliveryGuarantee(env),
  };
}
