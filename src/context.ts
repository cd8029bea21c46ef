import type { Config } from './config.ts';
import { createSecretBox, type SecretBox } from './crypto/secret-box.ts';
import type { Db } from './db/client.ts';
import { type DbHealth, watchDatabase } from './db/health.ts';
import { ClientAuthenticator } from './domain/auth/client-authenticator.ts';
import { TokenService } from './domain/auth/tokens.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { Metrics } from './metrics/metrics.ts';
import { createSmtpMailer, type Mailer } from './providers/mail/smtp.ts';
import { createProviders, type Providers } from './providers/registry.ts';

/**
 * Everything a request handler or worker needs, built once per service. Settings live here
 * (`config`) and reach the code that uses them as parameters (the price table, EXTERNALS_URL for
 * short links and media trust): no module holds one for the process, so two services with
 * different configurations can share a process.
 */
export interface AppContext {
  config: Config;
  db: Db;
  tokens: TokenService;
  /** Seals and opens secrets at rest (signing keys, webhook secrets) under SECRETS_KEY. */
  secrets: SecretBox;
  /** Client authentication at the token endpoint (failure budgets, verified-secret memory). */
  clientAuth: ClientAuthenticator;
  rateLimiter: RateLimiter;
  /** Carrier connections by name (a phone number's `provider` column picks one); started by the dispatcher. */
  providers: Providers;
  /** Whether the database answers (a watchdog ping); requests answer 503 SYS-503 while it does not. */
  dbHealth: DbHealth;
  /** E-mail through SMTP_URL (console invitations); undefined when no SMTP server is configured. */
  mailer: Mailer | undefined;
  /**
   * The service's log line writer (its logger; silent when none was given, as in tests); its
   * `taskError` counts a worker queue's failed item in `metrics` (a log set without one counts nothing).
   */
  log: ((msg: string) => void) & { taskError?: (queue: string) => void };
  /** The service's Prometheus metrics: off (no-op) until enabled (METRICS_PORT or METRICS_TOKEN). */
  metrics: Metrics;
  close: () => Promise<void>;
}

export function createContext(config: Config, db: Db, log?: (msg: string) => void): AppContext {
  const secrets = secretBoxFor(config);
  const tokens = new TokenService(db, config.publicUrl, config.tokenTtlSeconds, secrets);
  const rateLimiter = createRateLimiter(config.rateLimitPerMinute, config.redisUrl, config.redisKeyPrefix);
  // Carrier links log what an operator needs (binds, refusals, reconnects), each line naming its instance.
  const providers = createProviders(config, log);
  const mailer = config.smtp ? createSmtpMailer(config.smtp) : undefined;
  const metrics = new Metrics();
  const dbHealth = watchDatabase(db, { timeoutMs: Math.min(config.db.connectMs, 3_000), log });
  return {
    config,
    db,
    tokens,
    secrets,
    clientAuth: new ClientAuthenticator(db),
    rateLimiter,
    providers,
    dbHealth,
    mailer,
    log: Object.assign((msg: string) => log?.(msg), {
      taskError: (queue: string) => metrics.taskError(queue),
    }),
    metrics,
    close: async () => {
      mailer?.close();
      await dbHealth.stop();
      await rateLimiter.close();
      await providers.close();
    },
  };
}

/** The secret box of a configuration: SECRETS_KEY seals, SECRETS_KEY_PREVIOUS still opens. */
export function secretBoxFor(config: Pick<Config, 'secretsKey' | 'secretsKeyPrevious'>): SecretBox {
  return createSecretBox(config.secretsKey, config.secretsKeyPrevious ? [config.secretsKeyPrevious] : []);
}
