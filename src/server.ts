import type { FastifyInstance } from 'fastify';
import { type Config, ConfigError, loadConfig } from './config.ts';
import type { AppContext } from './context.ts';
import type { Db } from './db/client.ts';
import { type Database, openDatabase } from './db/setup.ts';
import { sealSecretsAtRest } from './domain/secrets/seal-secrets-at-rest.ts';
import { securityNotes } from './security-notes.ts';
import { StartupError } from './startup-error.ts';

/** Which parts of the service this process runs. */
export type Role = 'all' | 'api' | 'worker';

const log = (msg: string) => process.stdout.write(`${new Date().toISOString()} ${msg}\n`);

class Stopped extends Error {}

/** Listens, or fails with one line naming the port and its setting. */
async function listen(app: FastifyInstance, host: string, port: number, setting: string) {
  try {
    await app.listen({ port, host });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new StartupError(
        `port ${port} on ${host} is already in use: stop what listens there, or set ${setting} to a free port`,
      );
    if (code === 'EACCES')
      throw new StartupError(
        `port ${port} on ${host} needs privileges this process lacks: set ${setting} to a port above 1023`,
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new StartupError(
        `cannot listen on ${host}: no such local address; set HOST (e.g. 0.0.0.0 or 127.0.0.1)`,
      );
    throw err;
  }
}

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
  let smppServer: { close: () => Promise<void> } | undefined;
  let metricsServer: { close: () => Promise<void> } | undefined;
  let stopping: Promise<void> | undefined;

  const shutdown = (reason: string) => {
    stopping ??= (async () => {
      log(`${reason}: shutting down`);
      await Promise.allSettled([...apps.map((a) => a.close()), smppServer?.close()]);
      await workers?.stop();
      await metricsServer?.close();
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

  // The modules of the listeners and workers load while PostgreSQL starts (most of either is waiting).
  const modules = Promise.all([
    import('./context.ts'),
    import('./db/client.ts'),
    import('./domain/accounts/bootstrap.ts'),
    import('./http/app.ts'),
    import('./http/lazy-schemas.ts'),
    import('./workers/index.ts'),
  ]);
  modules.catch(() => {});
  try {
    void import('./storage/spooled-upload.ts').then((spool) => spool.sweepSpoolAtStart(log));
    database = await openDatabase(config, { log, role: 'service' });
    const [
      { createContext },
      { createPool },
      { bootstrap },
      { buildApiApp, buildExternalsApp },
      lazy,
      { startWorkers },
    ] = await modules;
    step(database);
    log(database.embedded ? `embedded PostgreSQL ready in ${config.dataDir}` : 'connected to DATABASE_URL');
    db = createPool(database.url, role === 'worker' ? 10 : 20, config.db);
    ctx = createContext(config, db, log);
    if (config.metrics.port || config.metrics.token) {
      await ctx.metrics.enable(role);
      if (config.metrics.port) {
        const { startMetricsServer } = await import('./metrics/serve.ts');
        const m = await startMetricsServer(db, ctx.metrics, {
          host: config.host,
          port: config.metrics.port,
          token: config.metrics.token,
          timeouts: config.http,
          log,
        }).catch((err: { code?: string }) => {
          if (err.code === 'EADDRINUSE')
            throw new StartupError(
              `port ${config.metrics.port} on ${config.host} is already in use: set METRICS_PORT to a free port`,
            );
          throw err;
        });
        metricsServer = m;
        log(`metrics on http://${config.host}:${m.port}/metrics`);
      }
    }
    const sealed = step(await sealSecretsAtRest(db, ctx.secrets));
    if (!config.secretsKey) {
      log('warning: SECRETS_KEY is not set: token-signing keys and webhook secrets are stored in plain text');
    }
    if (sealed.signingKeys + sealed.webhooks > 0) {
      log(
        `secrets at rest: ${sealed.signingKeys} signing keys and ${sealed.webhooks} webhooks ${config.secretsKey ? 'sealed under SECRETS_KEY' : 'opened to plain text'}`,
      );
    }
    // Numbers taken on an SMPP carrier before the operator assigned them cannot send (docs/routing.md).
    const { unverifyUnassignedNumbers, unverifiedNotes } = await import(
      './domain/numbers/number-assignments.ts'
    );
    for (const note of unverifiedNotes(step(await unverifyUnassignedNumbers(db, config.providers))))
      log(note);
    if (role !== 'worker') {
      const boot = step(await bootstrap(db, config));
      const lazySchemas = lazy.lazySchemaController();
      const api = await buildApiApp(ctx, { logger: true, lazySchemas });
      const externals = await buildExternalsApp(ctx, { logger: true, lazySchemas });
      apps.push(api, externals);
      step(api);
      await listen(api, config.host, config.port, 'PORT');
      await listen(externals, config.host, config.externalsPort, 'EXTERNALS_PORT');
      step(log(`API listening on ${config.publicUrl} (docs at ${config.publicUrl}/docs)`));
      log(`public listener on ${config.externalsUrl}`);
      if (config.smppServer.port > 0) {
        const { startSmppServer } = await import('./smpp/start.ts');
        smppServer = await startSmppServer(db, config, log);
      }
      for (const note of securityNotes(config)) log(note);
      lazySchemas.warm((err) => log(`a route schema does not compile: ${err.message}`));
      if (boot.clientSecret) {
        log(
          boot.firstAccount === 'bootstrap'
            ? 'created the bootstrap account (the database held none; BOOTSTRAP_ACCOUNT_ID, BOOTSTRAP_CLIENT_ID ' +
                'and BOOTSTRAP_CLIENT_SECRET name it instead); its credentials (shown once, also in the file below):'
            : 'created a development account; its credentials (shown once, also in the file below):',
        );
        process.stdout.write(
          `\n  SPARROW_ACCOUNT_ID=${boot.accountId}\n  SPARROW_CLIENT_ID=${boot.clientId}\n  SPARROW_CLIENT_SECRET=${boot.clientSecret}\n\n`,
        );
        log(`credentials written to ${boot.credentialsFile}`);
      }
      if (boot.admin?.password) {
        log(`console sign-in (shown once, also in the file above): ${config.publicUrl}/console/`);
        process.stdout.write(`\n  email:    ${boot.admin.email}\n  password: ${boot.admin.password}\n\n`);
      } else if (boot.admin?.created) {
        log(`console administrator ${boot.admin.email} created from BOOTSTRAP_ADMIN_EMAIL`);
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
