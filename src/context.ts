import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import { ClientAuthenticator } from './domain/auth/client-authenticator.ts';
import { TokenService } from './domain/auth/tokens.ts';
import { createRateLimiter, type RateLimiter } from './http/rate-limiter.ts';
import { createProviders, type Providers } from './providers/registry.ts';

/** Everything a request handler or worker needs, built once per process. */
export interface AppContext {
  config: Config;
  db: Db;
  tokens: TokenService;
  /** Client authentication at the token endpoint (failure budgets, verified-secret memory). */
  clientAuth: ClientAuthenticator;
  rateLimiter: RateLimiter;
  /** Carrier connections by name (a phone number's `provider` column picks one); started by the dispatcher. */
  providers: Providers;
  close: () => Promise<void>;
}

export function createContext(config: Config, db: Db): AppContext {
  const tokens = new TokenService(db, config.publicUrl, config.tokenTtlSeconds);
  const rateLimiter = createRateLimiter(config.rateLimitPerMinute, config.redisUrl);
  const providers = createProviders(config);
  return {
    config,
    db,
    tokens,
    clientAuth: new ClientAuthenticator(db),
    rateLimiter,
    providers,
    close: async () => {
      await rateLimiter.close();
      await providers.close();
    },
  };
}
