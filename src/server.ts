import type { FastifyInstance } from 'fastify';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { type AppContext, createContext } from './context.ts';
import { createPool, type Db } from './db/client.ts';
import { type Database, openDatabase } from './db/setup.ts';
import { bootstrap } from './domain/accounts/bootstrap.ts';
import { sealSecretsAtRest } from './domain/secrets/seal-secrets-at-rest.ts';
import { buildApiApp, buildExternalsApp } from './http/app.ts';
import { startWorkers } from './workers/index.ts';

/** Which parts of the service this process runs. */
export type Role = 'all' | 'api' | 'worker';

const log = (msg: string) => process.stdout.write(`${new Date().toISOString()} ${msg}\n`);

class Stopped extends Error {}

/**
 * Starts the service: database (embedded or DATABASE_URL), migrations, bootstrap account,
 * listeners and workers as the role says. SIGINT/SIGTERM — also during start-up — close the
 * listeners, drain the workers, close the pool and only then stop the embedded PostgreSQL.
 */
export async function startService(role: Role, config: Config = loadConfig()) {
  if (role !== 'all' && !config.databaseUrl) {
    // Each process would start an embedded PostgreSQL of its own in the same DATA_DIR.
    throw new ConfigError(`sparrow ${role} runs beside other processes on one PostgreSQL: set DATABASE_URL`);
  }
  let database: Database | undefined;
  let db: Db | undefined;
  let ctx: AppContext | undefined;
  const apps: FastifyInstance[] = [];
  let workers: { stop: () => Promise<void> } | undefined;
  let stopping: Promise<void> | undefined;

  const shutdown = (reason: string) => {
    stopping ??= (async () => {
      log(`${reason}: shutting down`);
      await Promise.allSettled(apps.map((a) => a.close()));
      await workers?.stop();
      await ctx?.close();
      await db?.end();
      await database?.stop();
      log('stopped');
    })();
    return stopping;
  };
  const exitAfter = (reason: string) =>
    void shutdown(reason).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  // A signal during start-up is acted on at the next step, once what is starting has a handle to close.
  let started = false;
  let signalled: string | undefined;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      if (started) exitAfter(sig);
      else signalled = sig;
    });
  }
  const step = <T>(v: T): T => {
    if (signalled) throw new Stopped();
    return v;
  };

  try {
    database = await openDatabase(config, log);
    step(database);
    log(database.embedded ? `embedded PostgreSQL ready in ${config.dataDir}` : 'connected to DATABASE_URL');
    db = createPool(database.url, role === 'worker' ? 10 : 20);
    ctx = createContext(config, db);
    const sealed = step(await sealSecretsAtRest(db, ctx.secrets));
    if (!config.secretsKey) {
      log('warning: SECRETS_KEY is not set: token-signing keys and webhook secrets are stored in plain text');
    }
    if (sealed.signingKeys + sealed.webhooks > 0) {
      log(
        `secrets at rest: ${sealed.signingKeys} signing keys and ${sealed.webhooks} webhooks ${config.secretsKey ? 'sealed under SECRETS_KEY' : 'opened to plain text'}`,
      );
    }
    if (role !== 'worker') {
      const boot = step(await bootstrap(db, config));
      const api = await buildApiApp(ctx, { logger: true });
      const externals = await buildExternalsApp(ctx, { logger: true });
      apps.push(api, externals);
      step(api);
      await api.listen({ port: config.port, host: config.host });
      await externals.listen({ port: config.externalsPort, host: config.host });
      step(log(`API listening on ${config.publicUrl} (docs at ${config.publicUrl}/docs)`));
      log(`public listener on ${config.externalsUrl}`);
      if (boot.clientSecret) {
        log('created a development account; its credentials (shown once, also in the file below):');
        process.stdout.write(
          `\n  SPARROW_ACCOUNT_ID=${boot.accountId}\n  SPARROW_CLIENT_ID=${boot.clientId}\n  SPARROW_CLIENT_SECRET=${boot.clientSecret}\n\n`,
        );
        log(`credentials written to ${boot.credentialsFile}`);
      }
    }
    if (role !== 'api' && config.workers) {
      workers = step(startWorkers(ctx, undefined, log));
      log('workers running');
    }
  } catch (err) {
    if (err instanceof Stopped) {
      exitAfter(signalled!);
      return { ctx, apps, shutdown };
    }
    await shutdown('start-up failure');
    throw err;
  }
  started = true;
  if (signalled) exitAfter(signalled);
  return { ctx, apps, shutdown };
}
