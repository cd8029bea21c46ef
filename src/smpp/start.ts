import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { StartupError } from '../startup-error.ts';
import { SmppServer } from './server.ts';

/** Starts the SMPP server of the configuration, or fails with one line naming the setting at fault. */
export async function startSmppServer(
  db: Db,
  config: Config,
  log: (msg: string) => void,
): Promise<SmppServer> {
  const { port, throughput: _throughput, ...settings } = config.smppServer;
  const { tlsCert } = settings;
  const server = new SmppServer(db, config, settings, log);
  try {
    await server.listen(port, config.host);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new StartupError(
        `port ${port} on ${config.host} is already in use: set SMPP_SERVER_PORT to a free port`,
      );
    if (code === 'EACCES')
      throw new StartupError(
        `port ${port} needs privileges this process lacks: set SMPP_SERVER_PORT above 1023`,
      );
    if (code === 'ENOENT' || code === 'EACCES' || /PEM|key|certificate/i.test((err as Error).message))
      throw new StartupError(
        `the SMPP server's TLS certificate or key cannot be used (SMPP_SERVER_TLS_CERT, SMPP_SERVER_TLS_KEY): ${(err as Error).message}`,
      );
    throw err;
  }
  log(`SMPP server listening on ${config.host}:${port}${tlsCert ? ' (TLS)' : ''}`);
  return server;
}
