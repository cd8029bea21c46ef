// The configuration's grouped sections, each read from its variables with its own checks:
// the SMPP server, payments, the simulator's doors, hosted files in S3, metrics, SMTP.
import type { Config } from '../config.ts';
import { isPlainEmail } from '../util/email.ts';
import { bool, ConfigError, int, url } from './read.ts';

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
  /** SMPP_SERVER_MAX_CONNECTIONS: connections open at once (unbound ones give way to new ones past it). */
  maxConnections: number;
  /** SMPP_SERVER_MAX_CONNECTIONS_PER_ADDRESS: connections open at once from one address (an IPv6 /64). */
  maxConnectionsPerAddress: number;
  /** SMPP_SERVER_BIND_TIMEOUT_SECONDS: a connection (its TLS handshake included) that has not bound by then is closed. */
  bindTimeoutMs: number;
  /** SMPP_SERVER_ENQUIRE_LINK_SECONDS: a bind quiet this long is sent enquire_link; quiet another period, closed. */
  enquireLinkMs: number;
  /** SMPP_SERVER_MAX_SUBMITTING: submissions being worked on in the whole server (ESME_RMSGQFUL beyond). */
  maxSubmitting: number;
  /** SMPP_SERVER_PARTS_KB_PER_BIND / _PER_CREDENTIAL / _TOTAL: pending concatenated parts, in bytes. */
  partsBudget: { perBind: number; perCredential: number; total: number };
}

/** SMPP_SERVER_*: the server is off at port 0; TLS needs both the certificate and the key. */
export function smppServer(env: NodeJS.ProcessEnv): SmppServerConfig {
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
    maxConnections: int(env, 'SMPP_SERVER_MAX_CONNECTIONS', 1000, 1, 100_000),
    maxConnectionsPerAddress: int(env, 'SMPP_SERVER_MAX_CONNECTIONS_PER_ADDRESS', 50, 1, 100_000),
    bindTimeoutMs: int(env, 'SMPP_SERVER_BIND_TIMEOUT_SECONDS', 5, 1, 300) * 1000,
    enquireLinkMs: int(env, 'SMPP_SERVER_ENQUIRE_LINK_SECONDS', 60, 1, 3600) * 1000,
    maxSubmitting: int(env, 'SMPP_SERVER_MAX_SUBMITTING', 2000, 1, 1_000_000),
    partsBudget: {
      perBind: int(env, 'SMPP_SERVER_PARTS_KB_PER_BIND', 1024, 1, 1 << 20) * 1024,
      perCredential: int(env, 'SMPP_SERVER_PARTS_KB_PER_CREDENTIAL', 4096, 1, 1 << 20) * 1024,
      total: int(env, 'SMPP_SERVER_PARTS_KB_TOTAL', 32768, 1, 1 << 20) * 1024,
    },
  };
}

/** PAYMENTS_PROVIDER (`none` | `simulator` | `stripe`), STRIPE_API_BASE, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET. */
export interface PaymentsConfig {
  provider: 'none' | 'simulator' | 'stripe';
  stripeApiBase: string;
  stripeSecretKey: string;
  stripeWebhookSecret: string;
}

export function payments(env: NodeJS.ProcessEnv, production: boolean): PaymentsConfig {
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

/** SIMULATOR_ENDPOINTS and SIMULATOR_SECRET: open in development, closed in production unless asked for. */
export function simulator(env: NodeJS.ProcessEnv, production: boolean) {
  const simulatorEndpoints = bool(env, 'SIMULATOR_ENDPOINTS', !production);
  const simulatorSecret = env.SIMULATOR_SECRET || '';
  if (production && simulatorEndpoints && !simulatorSecret) {
    throw new ConfigError(
      'SIMULATOR_ENDPOINTS=true in production needs SIMULATOR_SECRET (callers send it in X-Simulator-Secret)',
    );
  }
  return { simulatorEndpoints, simulatorSecret };
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

/** S3_*: a bucket for hosted files, or undefined (files under DATA_DIR). */
export function s3(env: NodeJS.ProcessEnv): S3Config | undefined {
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

/** Per-IP budgets (requests a minute) of the public listener's route families. */
export interface PublicRateLimits {
  forms: number;
  bookings: number;
  links: number;
  callbacks: number;
  simulator: number;
  files: number;
}

/** METRICS_PORT and METRICS_TOKEN (a token of at least 16 characters without spaces). */
export function metricsConfig(env: NodeJS.ProcessEnv): Config['metrics'] {
  const token = env.METRICS_TOKEN || '';
  if (token && (token.length < 16 || /\s/.test(token))) {
    throw new ConfigError(
      'METRICS_TOKEN must be at least 16 characters without spaces (e.g. `openssl rand -hex 24`)',
    );
  }
  return { port: int(env, 'METRICS_PORT', 0, 0, 65535), token };
}

/** An SMTP server (SMTP_URL) and the sender (SMTP_FROM) of the service's e-mail. */
export interface SmtpConfig {
  host: string;
  port: number;
  /** smtps://: TLS from the start (port 465 by default); smtp:// upgrades with STARTTLS when offered. */
  secure: boolean;
  /** The URL's user and password, decoded; none: no authentication. */
  user?: string;
  pass?: string;
  /** SMTP_FROM as given (`Sparrow <no-reply@example.com>` or a bare address). */
  from: string;
  /** The address of SMTP_FROM (the envelope sender). */
  fromAddress: string;
}

/**
 * SMTP_URL (smtp://user:password@host:port, smtps:// for TLS from the start) and SMTP_FROM
 * (`Name <address>` or an address); neither: no e-mail. The URL is never echoed: it holds a password.
 */
export function smtp(env: NodeJS.ProcessEnv): SmtpConfig | undefined {
  const raw = env.SMTP_URL || '';
  const from = (env.SMTP_FROM || '').trim();
  if (!raw) {
    if (from)
      throw new ConfigError('SMTP_FROM needs SMTP_URL (the server invitation e-mails are sent through)');
    return undefined;
  }
  let u: URL | undefined;
  try {
    u = new URL(raw);
  } catch {}
  if (
    !u ||
    (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') ||
    !u.hostname ||
    (u.pathname && u.pathname !== '/')
  ) {
    throw new ConfigError(
      'SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587 (smtps:// for TLS from the start)',
    );
  }
  const secure = u.protocol === 'smtps:';
  const fromAddress = /^[^<>\r\n]*<([^<>]+)>$/.exec(from)?.[1] ?? from;
  if (!from || /[\r\n]/.test(from) || !isPlainEmail(fromAddress)) {
    throw new ConfigError(
      `SMTP_URL needs SMTP_FROM, the sender of the e-mails, as an address or "Name <address>" (e.g. "Sparrow <no-reply@example.com>")${from ? `, got "${from}"` : ''}`,
    );
  }
  let user: string | undefined;
  let pass: string | undefined;
  try {
    user = u.username ? decodeURIComponent(u.username) : undefined;
    pass = u.password ? decodeURIComponent(u.password) : undefined;
  } catch {
    throw new ConfigError('SMTP_URL: the user or password is not valid percent-encoding');
  }
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    user,
    pass,
    from,
    fromAddress,
  };
}
