import fs from 'node:fs/promises';
import path from 'node:path';
import { type Config, ConfigError } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { anyAccountExists } from '../../db/queries/accounts.ts';
import { createClient } from '../auth/create-client.ts';
import { createAccount } from './create-account.ts';

/** What bootstrap did, for the start-up banner. */
export interface BootstrapResult {
  accountId?: string;
  clientId?: string;
  clientSecret?: string;
  credentialsFile?: string;
  created: boolean;
}

/**
 * BOOTSTRAP_* create that account and client if absent (idempotent). Without them, the first
 * start on an empty database creates a development account and client and writes the three
 * values to DATA_DIR/credentials.json (mode 0600).
 */
export async function bootstrap(db: Db, config: Config): Promise<BootstrapResult> {
  const { accountId, clientId, clientSecret } = config.bootstrap;
  if (accountId || clientId || clientSecret) {
    if (!accountId || !clientId || !clientSecret) {
      throw new ConfigError(
        'BOOTSTRAP_ACCOUNT_ID, BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET go together: set all three, or none',
      );
    }
    const { account, created } = await createAccount(db, { id: accountId, name: 'Bootstrap account' });
    const client = await createClient(db, account.id, {
      id: clientId,
      secret: clientSecret,
      name: 'Bootstrap client',
    }).catch((err: Error) => {
      // The client exists for another account, or with another secret.
      throw new ConfigError(`${err.message}: check BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET`);
    });
    return { accountId, clientId, created: created || client.created };
  }
  if (await anyAccountExists(db)) return { created: false };
  const { account } = await createAccount(db, { name: 'Development account' });
  const client = await createClient(db, account.id, { name: 'Development client' });
  const file = path.join(config.dataDir, 'credentials.json');
  await fs.mkdir(config.dataDir, { recursive: true });
  const body = JSON.stringify(
    { accountId: account.id, clientId: client.client.id, clientSecret: client.secret },
    null,
    2,
  );
  await fs.writeFile(file, `${body}\n`, { mode: 0o600 });
  await fs.chmod(file, 0o600);
  return {
    accountId: account.id,
    clientId: client.client.id,
    clientSecret: client.secret,
    credentialsFile: file,
    created: true,
  };
}
