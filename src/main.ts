import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { secretBoxFor } from './context.ts';
import { createPool } from './db/client.ts';
import { adjustBalance } from './db/queries/accounts.ts';
import { openDatabase } from './db/setup.ts';
import { createAccount } from './domain/accounts/create-account.ts';
import { createClient } from './domain/auth/create-client.ts';
import { revokeClient } from './domain/auth/revoke-client.ts';
import { TokenService } from './domain/auth/tokens.ts';
import { sealSecretsAtRest } from './domain/secrets/seal-secrets-at-rest.ts';
import { startService } from './server.ts';

const USAGE = `usage: sparrow <command>
  start                         API, public listener and workers in one process (default)
  api                           only the listeners
  worker                        only the workers
  migrate                       apply database migrations and exit
  accounts create [--name N] [--balance AMOUNT]
  accounts credit ID AMOUNT     add credit to an account's balance
  clients create --account ID [--name N]   prints the new client's secret once
  clients revoke CLIENT_ID
  keys rotate                   new token signing key (the previous one keeps verifying)
  secrets seal                  seal secrets at rest under SECRETS_KEY (what start-up does)`;

/** Runs a one-off command against the database, then lets it go. */
async function withDb<T>(fn: (db: ReturnType<typeof createPool>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const db = createPool(database.url, 2);
  try {
    return await fn(db);
  } finally {
    await db.end();
    await database.stop();
  }
}

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, account: { type: 'string' }, balance: { type: 'string' } },
  });
  const [cmd = 'start', sub, ...rest] = positionals;
  switch (cmd) {
    case 'start':
    case 'api':
    case 'worker':
      await startService(cmd === 'start' ? 'all' : cmd);
      return;
    case 'migrate':
      await withDb(async () => {});
      console.log('migrations applied');
      return;
    case 'accounts':
      if (sub === 'create') {
        const balance = values.balance === undefined ? undefined : Number(values.balance);
        if (balance !== undefined && !Number.isFinite(balance))
          throw new UsageError('--balance must be a number');
        const { account } = await withDb((db) =>
          createAccount(db, { name: values.name ?? 'New account', balance }),
        );
        console.log(JSON.stringify({ accountId: account.id, name: account.name }));
        return;
      }
      if (sub === 'credit' && rest.length === 2 && Number.isFinite(Number(rest[1]))) {
        const balance = await withDb((db) => adjustBalance(db, rest[0], Number(rest[1])));
        if (balance === undefined) throw new UsageError(`no account ${rest[0]}`);
        console.log(JSON.stringify({ accountId: rest[0], balance }));
        return;
      }
      break;
    case 'clients':
      if (sub === 'create' && values.account) {
        const out = await withDb((db) => createClient(db, values.account!, { name: values.name }));
        console.log(
          JSON.stringify({ accountId: values.account, clientId: out.client.id, clientSecret: out.secret }),
        );
        return;
      }
      if (sub === 'revoke' && rest[0]) {
        const revoked = await withDb((db) => revokeClient(db, rest[0]));
        if (!revoked) throw new UsageError(`no active client ${rest[0]}`);
        console.log(JSON.stringify({ clientId: rest[0], revoked: true }));
        return;
      }
      break;
    case 'keys':
      if (sub === 'rotate') {
        const config = loadConfig();
        const kid = await withDb((db) =>
          new TokenService(db, config.publicUrl, config.tokenTtlSeconds, secretBoxFor(config)).rotate(),
        );
        console.log(JSON.stringify({ kid }));
        return;
      }
      break;
    case 'secrets':
      if (sub === 'seal') {
        const report = await withDb((db) => sealSecretsAtRest(db, secretBoxFor(loadConfig())));
        console.log(JSON.stringify({ ...report, encrypted: Boolean(loadConfig().secretsKey) }));
        return;
      }
      break;
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
  }
  throw new UsageError(`unknown command: ${argv.join(' ')}`);
}

class UsageError extends Error {}

main(process.argv.slice(2)).catch((err: Error) => {
  if (err instanceof UsageError) console.error(`${err.message}\n\n${USAGE}`);
  else if (err instanceof ConfigError) console.error(`configuration error: ${err.message}`);
  else if (err instanceof TypeError && 'code' in err && err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    console.error(`${err.message}\n\n${USAGE}`);
  else console.error(err);
  process.exit(err instanceof UsageError || err instanceof ConfigError ? 2 : 1);
});
