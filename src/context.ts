import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import { type DbHealth, watchDatabase } from './db/health.ts';
import { TokenService } from './domain/auth/tokens.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { createProviders, type Providers } from './providers/registry.ts';

/** Everything a request handler or worker needs, built once per process. */
export interface AppContext {
  config: Config;
  db: Db;
  tokens: TokenService;
  rateLimiter: RateLimiter;
  /** Carrier connections by name (a phone number's `provider` column picks one); started by the dispatcher. */
  providers: Providers;
  /** Whether the database answers (a watchdog ping); requests answer 503 SYS-503 while it does not. */
  dbHealth: DbHealth;
  close: () => Promise<void>;
}

export function createContext(config: Config, db: Db, log?: (msg: string) => void): AppContext {
  const tokens = new TokenService(db, config.publicUrl, config.tokenTtlSeconds);
  const rateLimiter = createRateLimiter(config.rateLimitPerMinute, config.redisUrl);
  const providers = createProviders(config);
  const dbHealth = watchDatabase(db, { timeoutMs: Math.min(config.db.connectMs, 3_000), log });
  return {
    config,
    db,
    tokens,
    rateLimiter,
    providers,
    dbHealth,
    close: async () => {
      await dbHealth.stop();
      await rateLimiter.close();
      await providers.close();
    },
  };
}
