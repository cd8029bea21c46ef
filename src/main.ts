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
  accounts weight ACCOUNT_ID N  the account's share of the dispatcher against other accounts' (1..100,
                                default 1: equal turns; docs/routing.md, "Fair share")
  clients create --account ACCOUNT_ID [--name N]   prints the new client's secret once
  clients revoke CLIENT_ID
  users create --account ACCOUNT_ID --email E [--role R] [--password P]
                                a console user of the account (role Administrator, Member or Viewer;
                                default Administrator); without --password prints an invitation link
  users reset-password --email E [--password P]
                                sets the password, or prints a link that sets it (once, 72 h)
  smpp-credentials create --account ACCOUNT_ID [--name N] [--throughput N]
                                SMPP system_id and password for ESMEs (password printed once)
  smpp-credentials delete --account ACCOUNT_ID CREDENTIAL_ID
  routes list [--account ACCOUNT_ID]
                                the operator's default routes (or an account's), one JSON line each
  routes add [--account ACCOUNT_ID] [--prefix DIGITS | --country CC] --providers P[:PRIORITY[:WEIGHT]],...
                                a route (default table without --account; neither --prefix nor
                                --country: every destination), e.g. --providers smpp:1:70,twilio:1:30,simulator:2;
                                a provider is an instance name (smpp, twilio, simulator or one of PROVIDERS)
  routes remove [--account ACCOUNT_ID] ROUTE_ID
  numbers assign ACCOUNT_ID NUMBER --provider NAME
                                the number is the account's on that carrier (SMPP numbers are sendable
                                only so); taken for the account when it does not hold it
  numbers unassign ACCOUNT_ID NUMBER --provider NAME
                                takes the assignment back; the account's number on that carrier is released
  numbers list [--account ACCOUNT_ID]
                                the assignments, one JSON line each
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
      email: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      throughput: { type: 'string' },
      prefix: { type: 'string' },
      country: { type: 'string' },
      providers: { type: 'string' },
      provider: { type: 'string' },
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
      if (sub === 'weight') {
        if (rest.length !== 2) throw new UsageError('accounts weight takes ACCOUNT_ID N');
        const id = accountIdArg(rest[0]);
        const weight = Number(rest[1]);
        if (!/^\d+$/.test(rest[1]) || weight < 1 || weight > 100)
          throw new UsageError(`N must be a whole number from 1 to 100 (not "${rest[1]}")`);
        const { setDispatchWeight } = await import('./db/queries/accounts.ts');
        const done = await withDb((db) => setDispatchWeight(db, id, weight));
        if (!done) throw new CommandError(`no account ${id}`);
        console.log(JSON.stringify({ accountId: id, dispatchWeight: weight }));
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
          return createClient(db, accountId, { name: values.name, hashCost: loadConfig().secretHashCost });
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
    case 'users':
      if (sub === 'create' || sub === 'reset-password') {
        if (!values.email) throw new UsageError(`users ${sub} needs --email`);
        const email = values.email.trim().toLowerCase();
        const role = (values.role ?? 'Administrator') as 'Administrator' | 'Member' | 'Viewer';
        if (!['Administrator', 'Member', 'Viewer'].includes(role))
          throw new UsageError(`--role must be Administrator, Member or Viewer, got "${values.role}"`);
        const config = loadConfig();
        const [
          { ensureUser },
          { createInvitation },
          users,
          { findAccount },
          { setPassword },
          { hashPassword },
        ] = await Promise.all([
          import('./domain/users/members.ts'),
          import('./domain/users/invitations.ts'),
          import('./db/queries/users.ts'),
          import('./db/queries/accounts.ts'),
          import('./db/queries/users.ts'),
          import('./domain/users/passwords.ts'),
        ]);
        const by = { id: 'cli', name: 'sparrow CLI', source: 'cli' };
        const out = await withDb(async (db) => {
          if (sub === 'create') {
            const accountId = accountIdArg(values.account);
            if (!(await findAccount(db, accountId))) throw new CommandError(`no account ${accountId}`);
            if (values.password !== undefined) {
              const { userId, created } = await ensureUser(
                db,
                accountId,
                { email, password: values.password, role, hashCost: config.secretHashCost },
                by,
              );
              return { accountId, userId, email, role, created };
            }
            const inv = await createInvitation(db, config, accountId, { email, role }, by);
            return { accountId, email, role, invitationLink: inv.link, expires: inv.expires };
          }
          const user = await users.findUserByEmail(db, email);
          if (!user) throw new CommandError(`no console user ${email}`);
          if (values.password !== undefined) {
            await setPassword(db, user.id, {
              hash: await hashPassword(values.password, config.secretHashCost),
            });
            return { userId: user.id, email, passwordSet: true };
          }
          const [membership] = await users.membershipsOf(db, user.id);
          if (!membership) throw new CommandError(`${email} is not a member of any account`);
          const inv = await createInvitation(
            db,
            config,
            membership.account_id,
            { email, role: membership.role, kind: 'reset' },
            by,
          );
          return { userId: user.id, email, resetLink: inv.link, expires: inv.expires };
        });
        console.log(JSON.stringify(out));
        return;
      }
      break;
    case 'smpp-credentials':
      if (sub === 'create') {
        const accountId = accountIdArg(values.account);
        const throughput =
          values.throughput === undefined ? undefined : amountArg(values.throughput, '--throughput');
        if (
          throughput !== undefined &&
          (!Number.isInteger(throughput) || throughput < 1 || throughput > 100_000)
        )
          throw new UsageError(
            `--throughput must be an integer from 1 to 100000, got "${values.throughput}"`,
          );
        const config = loadConfig();
        const [{ createSmppCredential }, { findAccount }] = await Promise.all([
          import('./domain/smpp/create-credential.ts'),
          import('./db/queries/accounts.ts'),
        ]);
        const out = await withDb(async (db) => {
          if (!(await findAccount(db, accountId))) throw new CommandError(`no account ${accountId}`);
          return createSmppCredential(
            db,
            accountId,
            { name: values.name, throughput },
            { id: 'cli', name: 'sparrow smpp-credentials', source: 'cli' },
            config.smppServer.throughput,
            config.secretHashCost,
          );
        });
        const c = out.credential;
        console.log(
          JSON.stringify({
            accountId,
            credentialId: c.id,
            systemId: c.system_id,
            password: out.password,
            throughput: c.throughput_mps,
          }),
        );
        return;
      }
      if (sub === 'delete' && rest.length === 1) {
        const accountId = accountIdArg(values.account);
        const id = rest[0];
        if (!UUID.test(id)) throw new UsageError(`"${id}" is not a credential id (credential ids are UUIDs)`);
        const { deleteSmppCredential } = await import('./db/queries/smpp.ts');
        const deleted = await withDb((db) => deleteSmppCredential(db, accountId, id));
        if (!deleted) throw new CommandError(`no SMPP credential ${id} in account ${accountId}`);
        console.log(JSON.stringify({ credentialId: id, deleted: true }));
        return;
      }
      break;
    case 'routes': {
      // The default table (account NULL) unless --account names one.
      const accountId = values.account === undefined ? null : accountIdArg(values.account);
      const [routes, { findAccount }] = await Promise.all([
        import('./domain/routes/routes.ts'),
        import('./db/queries/accounts.ts'),
      ]);
      const checkAccount = async (db: import('./db/client.ts').Db) => {
        if (accountId && !(await findAccount(db, accountId)))
          throw new CommandError(`no account ${accountId}`);
      };
      if (sub === 'list' && rest.length === 0) {
        const all = await withDb(async (db) => {
          await checkAccount(db);
          return routes.listRoutes(db, accountId, 0, 1_000_000);
        });
        for (const r of all.items) console.log(JSON.stringify(r));
        return;
      }
      if (sub === 'add' && rest.length === 0) {
        if (!values.providers) throw new UsageError('--providers is needed, e.g. smpp:1:70,twilio:1:30');
        const providers = values.providers.split(',').map((spec) => {
          const [provider, priority, weight, extra] = spec.trim().split(':');
          const int = (v: string | undefined, what: string) => {
            if (v === undefined || v === '') return undefined;
            if (!/^[0-9]{1,5}$/.test(v))
              throw new UsageError(`${what} must be an integer, got "${v}" in "${spec}"`);
            return Number(v);
          };
          if (!provider || extra !== undefined)
            throw new UsageError(`"${spec}" is not PROVIDER[:PRIORITY[:WEIGHT]]`);
          return { provider, priority: int(priority, 'priority'), weight: int(weight, 'weight') };
        });
        const made = await withDb(async (db) => {
          await checkAccount(db);
          return routes.createRoute(
            db,
            accountId,
            { prefix: values.prefix, country: values.country, providers },
            { id: 'cli', name: 'sparrow routes', source: 'cli' },
          );
        });
        console.log(JSON.stringify(made));
        // Allowed (docs/routing.md), but likely a typo or a carrier still to set up: say so.
        const { configuredInstances } = await import('./providers/instances.ts');
        const here = new Set(['simulator', ...configuredInstances(loadConfig()).map((i) => i.name)]);
        for (const p of providers.filter((p) => !here.has(p.provider)))
          console.error(
            `sparrow: note: ${p.provider} is not configured here (TWILIO_*, SMPP_*, PROVIDERS): messages pass it over`,
          );
        return;
      }
      if (sub === 'remove' && rest.length === 1) {
        const id = rest[0];
        if (!UUID.test(id)) throw new UsageError(`"${id}" is not a route id (route ids are UUIDs)`);
        await withDb((db) => routes.deleteRoute(db, accountId, id));
        console.log(JSON.stringify({ routeId: id, deleted: true }));
        return;
      }
      break;
    }
    case 'numbers': {
      // The operator's assignments of numbers on real carriers (docs/routing.md, "Who may send from a number").
      const assignments = await import('./domain/numbers/number-assignments.ts');
      const by = { id: 'cli', name: 'sparrow numbers', source: 'cli' };
      if ((sub === 'assign' || sub === 'unassign') && rest.length === 2) {
        const accountId = accountIdArg(rest[0]);
        if (!values.provider) throw new UsageError('--provider NAME is needed (the carrier instance)');
        const input = { accountId, number: rest[1], provider: values.provider };
        const { findAccount } = await import('./db/queries/accounts.ts');
        const done = await withDb(async (db) => {
          if (!(await findAccount(db, accountId))) throw new CommandError(`no account ${accountId}`);
          return sub === 'assign'
            ? assignments.assignNumber(db, input, by)
            : assignments.unassignNumber(db, input, by);
        });
        console.log(JSON.stringify(done));
        if (sub === 'assign') {
          const { configuredInstances } = await import('./providers/instances.ts');
          if (!configuredInstances(loadConfig()).some((i) => i.name === values.provider))
            console.error(
              `sparrow: note: ${values.provider} is not configured here (TWILIO_*, SMPP_*, PROVIDERS): nothing is sent through it`,
            );
        }
        return;
      }
      if (sub === 'list' && rest.length === 0) {
        const accountId = values.account === undefined ? null : accountIdArg(values.account);
        const all = await withDb((db) => assignments.listNumberAssignments(db, accountId));
        for (const a of all) console.log(JSON.stringify(a));
        return;
      }
      break;
    }
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
  // A rule of the service refused the command (e.g. a password too short): its message and code.
  const appCode = (err as { code?: unknown; status?: unknown })?.status ? code : undefined;
  if (err instanceof StartupError || err instanceof CommandError || appCode) {
    console.error(`sparrow: ${(err as Error).message}${appCode ? ` (${appCode})` : ''}`);
    process.exit(1);
  }
  // Unexpected: one line first, the details after it for a bug report.
  const message = err instanceof Error ? err.message : String(err);
  console.error(`sparrow: unexpected error: ${message || '(no message)'}`);
  if (err instanceof Error && err.stack) console.error(err.stack);
  process.exit(1);
});
