import fs from 'node:fs/promises';
import path from 'node:path';
import { type Config, ConfigError } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { anyAccountExists } from '../../db/queries/accounts.ts';
import { findUserByEmail } from '../../db/queries/users.ts';
import { randomToken } from '../../util/ids.ts';
import { SYSTEM } from '../actor.ts';
import { createClient } from '../auth/create-client.ts';
import { ensureUser } from '../users/members.ts';
import { createAccount } from './create-account.ts';

/** What bootstrap did, for the start-up banner. */
export interface BootstrapResult {
  accountId?: string;
  clientId?: string;
  clientSecret?: string;
  credentialsFile?: string;
  created: boolean;
  /**
   * What the first start on an empty database made without BOOTSTRAP_*: a development account, or
   * under NODE_ENV=production the bootstrap account (the same, named for what it is there).
   */
  firstAccount?: 'development' | 'bootstrap';
  /** The console administrator made now (its password is shown once when generated here). */
  admin?: { email: string; password?: string; created: boolean };
}

const DEV_ADMIN_EMAIL = 'admin@localhost.localdomain';

/**
 * BOOTSTRAP_ADMIN_EMAIL / BOOTSTRAP_ADMIN_PASSWORD: that person is an administrator of the account,
 * created with that password if absent (an existing user keeps their password).
 */
async function bootstrapAdmin(db: Db, config: Config, accountId: string): Promise<BootstrapResult['admin']> {
  const { adminEmail, adminPassword } = config.bootstrap;
  if (!adminEmail && !adminPassword) return undefined;
  if (!adminEmail || !adminPassword)
    throw new ConfigError(
      'BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD go together: set both, or neither',
    );
  const existing = await findUserByEmail(db, adminEmail);
  const out = await ensureUser(
    db,
    accountId,
    {
      email: adminEmail,
      password: existing?.password_hash ? undefined : adminPassword,
      role: 'Administrator',
      hashCost: config.secretHashCost,
    },
    SYSTEM,
  ).catch((err: Error) => {
    throw new ConfigError(`BOOTSTRAP_ADMIN_PASSWORD / BOOTSTRAP_ADMIN_EMAIL: ${err.message}`);
  });
  return { email: adminEmail, created: out.created };
}

/**
 * BOOTSTRAP_* create that account and client if absent (idempotent). Without them, the first
 * start on an empty database creates an account and client (the development account; in
 * production, the bootstrap account) and writes the three values to DATA_DIR/credentials.json
 * (mode 0600).
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
      hashCost: config.secretHashCost,
    }).catch((err: Error) => {
      // The client exists for another account, or with another secret.
      throw new ConfigError(`${err.message}: check BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET`);
    });
    const admin = await bootstrapAdmin(db, config, account.id);
    return { accountId, clientId, created: created || client.created, admin };
  }
  if (await anyAccountExists(db)) {
    // Without BOOTSTRAP_ACCOUNT_ID the administrator joins the oldest account (the development one).
    if (!config.bootstrap.adminEmail && !config.bootstrap.adminPassword) return { created: false };
    const { rows } = await db.query<{ id: string }>(
      'SELECT id FROM accounts ORDER BY created_at, id LIMIT 1',
    );
    return { created: false, admin: await bootstrapAdmin(db, config, rows[0].id) };
  }
  const firstAccount = config.production ? 'bootstrap' : 'development';
  const named = config.production ? 'Bootstrap' : 'Development';
  const { account } = await createAccount(db, { name: `${named} account` });
  const client = await createClient(db, account.id, {
    name: `${named} client`,
    hashCost: config.secretHashCost,
  });
  // The console's first administrator: BOOTSTRAP_ADMIN_* when set, else a generated development one.
  let admin = await bootstrapAdmin(db, config, account.id);
  if (!admin) {
    const password = randomToken(12);
    await ensureUser(
      db,
      account.id,
      { email: DEV_ADMIN_EMAIL, password, role: 'Administrator', hashCost: config.secretHashCost },
      SYSTEM,
    );
    admin = { email: DEV_ADMIN_EMAIL, password, created: true };
  }
  const file = path.join(config.dataDir, 'credentials.json');
  await fs.mkdir(config.dataDir, { recursive: true });
  const body = JSON.stringify(
    {
      accountId: account.id,
      clientId: client.client.id,
      clientSecret: client.secret,
      consoleEmail: admin.email,
      ...(admin.password ? { consolePassword: admin.password } : {}),
    },
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
    firstAccount,
    admin,
  };
}
