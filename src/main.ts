import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { StartupError } from './startup-error.ts';

const USAGE = `usage: sparrow <command> [options]
  start                         API, public listener and workers in one process (default)
  api                           only the listeners (needs DATABASE_URL)
  worker                        only the workers (needs DATABASE_URL)
  migrate                       apply database migrations and exit
  accounts create [--name N] [--balance AMOUNT]
  accounts credit ACCOUNT_ID AMOUNT   add credit to an account's balance (a negative AMOUNT debits)
  clients create --account ACCOUNT_ID [--name N]   prints the new client's secret once
  clients revoke CLIENT_ID
  keys rotate                   new token signing key (the previous one keeps verifying)
  secrets seal                  seal secrets at rest under SECRETS_KEY (what start-up does)
  help                          this text (also --help, -h, and <command> --help)

The admin commands use DATABASE_URL, or the embedded PostgreSQL in DATA_DIR: the one a running
service started when there is one (found through DATA_DIR/server.json), else one of their own for
the command's duration.`;

/** A command line that does not say what to do: printed with the usage, exit 2. */
class UsageError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function accountIdArg(value: string | undefined): string {
  if (!value) throw new UsageError('an account id is needed');
  if (!UUID.test(value)) throw new UsageError(`"${value}" is not an account id (account ids are UUIDs)`);
  return value;
}

function amountArg(value: string | undefined, what: string): number {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(n))
    throw new UsageError(`${what} must be a number, got "${value ?? ''}"`);
  return n;
}

/** Runs a one-off command against the database, then lets it go (a running service's server stays up). */
async function withDb<T>(fn: (db: import('./db/client.ts').Db) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const [{ openDatabase }, { createPool }] = await Promise.all([
    import('./db/setup.ts'),
    import('./db/client.ts'),
  ]);
  const database = await openDatabase(config, { role: 'cli' });
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
    options: {
      name: { type: 'string' },
      account: { type: 'string' },
      balance: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd = 'start', sub, ...rest] = positionals;
  if (values.help || cmd === 'help') {
    console.log(USAGE);
    return;
  }
  switch (cmd) {
    case 'start':
    case 'api':
    case 'worker': {
      const { startService } = await import('./server.ts');
      await startService(cmd === 'start' ? 'all' : cmd);
      return;
    }
    case 'migrate':
      await withDb(async () => {});
      console.log('migrations applied');
      return;
    case 'accounts':
      if (sub === 'create') {
        const balance = values.balance === undefined ? undefined : amountArg(values.balance, '--balance');
        const { createAccount } = await import('./domain/accounts/create-account.ts');
        const { account } = await withDb((db) =>
          createAccount(db, { name: values.name ?? 'New account', balance }),
        );
        console.log(JSON.stringify({ accountId: account.id, name: account.name }));
        return;
      }
      if (sub === 'credit') {
        if (rest.length !== 2) throw new UsageError('accounts credit takes ACCOUNT_ID AMOUNT');
        const id = accountIdArg(rest[0]);
        const amount = amountArg(rest[1], 'AMOUNT');
        const { adjustBalance } = await import('./db/queries/accounts.ts');
        const balance = await withDb((db) => adjustBalance(db, id, amount));
        if (balance === undefined) throw new CommandError(`no account ${id}`);
        console.log(JSON.stringify({ accountId: id, balance }));
        return;
      }
      break;
    case 'clients':
      if (sub === 'create') {
        const accountId = accountIdArg(values.account);
        const [{ createClient }, { findAccount }] = await Promise.all([
          import('./domain/auth/create-client.ts'),
          import('./db/queries/accounts.ts'),
        ]);
        const out = await withDb(async (db) => {
          if (!(await findAccount(db, accountId))) throw new CommandError(`no account ${accountId}`);
          return createClient(db, accountId, { name: values.name });
        });
        console.log(JSON.stringify({ accountId, clientId: out.client.id, clientSecret: out.secret }));
        return;
      }
      if (sub === 'revoke' && rest[0]) {
        const { revokeClient } = await import('./domain/auth/revoke-client.ts');
        const revoked = await withDb((db) => revokeClient(db, rest[0]));
        if (!revoked) throw new CommandError(`no active client ${rest[0]}`);
        console.log(JSON.stringify({ clientId: rest[0], revoked: true }));
        return;
      }
      break;
    case 'keys':
      if (sub === 'rotate') {
        const config = loadConfig();
        const [{ TokenService }, { secretBoxFor }] = await Promise.all([
          import('./domain/auth/tokens.ts'),
          import('./context.ts'),
        ]);
        const kid = await withDb((db) =>
          new TokenService(db, config.publicUrl, config.tokenTtlSeconds, secretBoxFor(config)).rotate(),
        );
        console.log(JSON.stringify({ kid }));
        return;
      }
      break;
    case 'secrets':
      if (sub === 'seal') {
        const [{ secretBoxFor }, { sealSecretsAtRest }] = await Promise.all([
          import('./context.ts'),
          import('./domain/secrets/seal-secrets-at-rest.ts'),
        ]);
        const config = loadConfig();
        const report = await withDb((db) => sealSecretsAtRest(db, secretBoxFor(config)));
        console.log(JSON.stringify({ ...report, encrypted: Boolean(config.secretsKey) }));
        return;
      }
      break;
  }
  throw new UsageError(`unknown command: ${argv.join(' ')}`);
}

/** A command that ran but could not do what was asked (no such account…): exit 1. */
class CommandError extends Error {}

main(process.argv.slice(2)).catch((err: unknown) => {
  const code = (err as { code?: string })?.code;
  if (
    err instanceof UsageError ||
    code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
    code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
  ) {
    const unknown = (err as Error).message.startsWith('unknown command');
    console.error(
      `sparrow: ${(err as Error).message}${unknown ? `\n\n${USAGE}` : ' (sparrow --help prints the usage)'}`,
    );
    process.exit(2);
  }
  if (err instanceof ConfigError) {
    console.error(`sparrow: configuration error: ${err.message}`);
    process.exit(2);
  }
  if (err instanceof StartupError || err instanceof CommandError) {
    console.error(`sparrow: ${err.message}`);
    process.exit(1);
  }
  // Unexpected: one line first, the details after it for a bug report.
  const message = err instanceof Error ? err.message : String(err);
  console.error(`sparrow: unexpected error: ${message || '(no message)'}`);
  if (err instanceof Error && err.stack) console.error(err.stack);
  process.exit(1);
});
