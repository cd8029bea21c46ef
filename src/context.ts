import type { Config } from './config.ts';
import { createSecretBox, type SecretBox } from './crypto/secret-box.ts';
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
  /** Seals and opens secrets at rest (signing keys, webhook secrets) under SECRETS_KEY. */
  secrets: SecretBox;
  /** Client authentication at the token endpoint (failure budgets, verified-secret memory). */
  clientAuth: ClientAuthenticator;
  rateLimiter: RateLimiter;
  /** Carrier connections by name (a phone number's `provider` column picks one); started by the dispatcher. */
  providers: Providers;
  close: () => Promise<void>;
}

export function createContext(config: Config, db: Db): AppContext {
  const secrets = secretBoxFor(config);
  const tokens = new TokenService(db, config.publicUrl, config.tokenTtlSeconds, secrets);
  const rateLimiter = createRateLimiter(config.rateLimitPerMinute, config.redisUrl);
  const providers = createProviders(config);
  return {
    config,
    db,
    tokens,
    secrets,
    clientAuth: new ClientAuthenticator(db),
    rateLimiter,
    providers,
    close: async () => {
      await rateLimiter.close();
      await providers.close();
    },
  };
}

/** The secret box of a configuration: SECRETS_KEY seals, SECRETS_KEY_PREVIOUS still opens. */
export function secretBoxFor(config: Pick<Config, 'secretsKey' | 'secretsKeyPrevious'>): SecretBox {
  return createSecretBox(config.secretsKey, config.secretsKeyPrevious ? [config.secretsKeyPrevious] : []);
}
