import type { Config } from '../config.ts';
import { startEmbedded } from './embedded.ts';
import { migrate } from './migrate.ts';

/** Where the database is and how to let it go. */
export interface Database {
  url: string;
  embedded: boolean;
  stop: () => Promise<void>;
}

/** Connects to DATABASE_URL, or starts embedded PostgreSQL in DATA_DIR; then migrates. */
export async function openDatabase(config: Config, log: (msg: string) => void = () => {}): Promise<Database> {
  if (config.databaseUrl) {
    await migrate(config.databaseUrl);
    return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  }
  const server = await startEmbedded(config.dataDir, 'sparrow', log);
  const url = server.url('sparrow');
  try {
    await migrate(url);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { url, embedded: true, stop: () => server.stop() };
}
