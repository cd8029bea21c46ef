import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from './config.ts';
import { createContext } from './context.ts';
import { createPool } from './db/client.ts';
import { openDatabase } from './db/setup.ts';
import { bootstrap } from './domain/accounts/bootstrap.ts';
import { buildApiApp, buildExternalsApp } from './http/app.ts';
import { startWorkers } from './workers/index.ts';

/** Which parts of the service this process runs. */
export type Role = 'all' | 'api' | 'worker';

const log = (msg: string) => process.stdout.write(`${new Date().toISOString()} ${msg}\n`);

/**
 * Starts the service: database (embedded or DATABASE_URL), migrations, bootstrap account,
 * listeners and workers as the role says; SIGINT/SIGTERM close listeners, drain work, stop Postgres.
 */
export async function startService(role: Role, config: Config = loadConfig()) {
  const database = await openDatabase(config, log);
  log(database.embedded ? `embedded PostgreSQL ready in ${config.dataDir}` : 'connected to DATABASE_URL');
  const db = createPool(database.url, role === 'worker' ? 10 : 20);
  const ctx = createContext(config, db);
  const apps: FastifyInstance[] = [];
  let workers: { stop: () => Promise<void> } | undefined;

  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string) => {
    stopping ??= (async () => {
      log(`${signal}: shutting down`);
      await Promise.allSettled(apps.map((a) => a.close()));
      await workers?.stop();
      await ctx.close();
      await db.end();
      await database.stop();
      log('stopped');
    })();
    return stopping;
  };

  try {
    if (role !== 'worker') {
      const boot = await bootstrap(db, config);
      const api = await buildApiApp(ctx, { logger: true });
      const externals = await buildExternalsApp(ctx, { logger: true });
      apps.push(api, externals);
      await api.listen({ port: config.port, host: config.host });
      await externals.listen({ port: config.externalsPort, host: config.host });
      log(`API listening on ${config.publicUrl} (docs at ${config.publicUrl}/docs)`);
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
      workers = startWorkers(ctx, undefined, log);
      log('workers running');
    }
  } catch (err) {
    await shutdown('start-up failure');
    throw err;
  }

  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      void shutdown(sig).then(() => process.exit(0));
    });
  }
  return { ctx, apps, shutdown };
}
