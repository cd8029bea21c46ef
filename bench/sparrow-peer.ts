import path from 'node:path';
import { ensureBundle } from '../scripts/bundle.js';
import { createPool } from '../src/db/client.ts';
import { freePort } from '../src/db/embedded.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { SYSTEM } from '../src/domain/actor.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { createSmppCredential } from '../src/domain/smpp/create-credential.ts';
import { START_FLAGS } from '../test/support/start-flags.ts';
import { postmasterPid } from './proc-cpu.ts';
import { type Peer, request, sleep, spawnLogged, stopChild } from './race-support.ts';
import { benchDatabase, topStatements } from './support.ts';

const BIN = path.resolve('bin/sparrow.js');

export interface Sparrow extends Peer {
  apiPort: number;
  smppPort: number;
  accountId: string;
  token: string;
  systemId: string;
  password: string;
  sourceNumber: string;
  /** Messages of the account in `sent`. */
  sent(): Promise<number>;
  /** PGSS: the statements that took most of PostgreSQL's time since the last call. */
  statements(): Promise<string[]>;
}

/** How bench:peer runs Sparrow (its env: WINDOW, IN_FLIGHT, PROFILE, ROLES, PGSS). */
export interface SparrowOptions {
  /** The SMPP window: the provider's (to the sink) and the SMPP server's (at least 50). */
  window: number;
  /** DISPATCH_IN_FLIGHT; undefined: Sparrow's default. */
  inFlight?: string;
  /** A directory for each process's V8 CPU profile. */
  profile?: string;
  /** `start` (one process), `split` (`api` + `worker`) or `api` (the listeners alone). */
  roles: string;
  /** pg_stat_statements preloaded: `statements()` answers the top statements. */
  statements: boolean;
}

/**
 * Sparrow as a peer of bench:peer's race: `sparrow start` (or its roles) on a fresh embedded
 * PostgreSQL, an account with a token, an SMPP credential and a number sent through the sink.
 */
export async function startSparrow(sinkPort: number, o: SparrowOptions): Promise<Sparrow> {
  await ensureBundle();
  const database = await benchDatabase({ statements: o.statements });
  const db = createPool(database.url, 2);
  const postmaster = (await postmasterPid(db)) ?? 0;
  const { account } = await createAccount(db, { name: 'peer race', balance: 10_000_000 });
  const { client, secret } = await createClient(db, account.id);
  const { credential, password } = await createSmppCredential(
    db,
    account.id,
    { throughput: 100_000, name: 'bench' },
    SYSTEM,
    100_000,
  );
  const [apiPort, externalsPort, smppPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    EXTERNALS_PORT: String(externalsPort),
    PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
    EXTERNALS_URL: `http://127.0.0.1:${externalsPort}`,
    SMPP_URL: `smpp://127.0.0.1:${sinkPort}`,
    SMPP_SYSTEM_ID: 'sparrow',
    SMPP_PASSWORD: 'sparrow',
    SMPP_WINDOW_SIZE: String(o.window),
    SMPP_MAX_PER_SECOND: '0',
    SMPP_SERVER_PORT: String(smppPort),
    SMPP_SERVER_WINDOW: String(Math.max(o.window, 50)),
    ...(o.inFlight ? { DISPATCH_IN_FLIGHT: o.inFlight } : {}),
    RATE_LIMIT_PER_MINUTE: '100000000',
    QUIET_HOURS_ENABLED: 'false',
    LOG_LEVEL: 'warn',
  };
  const sparrow = (role: string) =>
    spawnLogged(
      process.execPath,
      [...START_FLAGS, ...(o.profile ? ['--cpu-prof', `--cpu-prof-dir=${o.profile}`] : []), BIN, role],
      env,
      process.cwd(),
    );
  // split: the listeners and the workers as two processes on the one database (the scale-out
  // shape on one machine); else one `sparrow start`.
  const procs =
    o.roles === 'split'
      ? [sparrow('api'), sparrow('worker')]
      : o.roles === 'api'
        ? [sparrow('api')]
        : [sparrow('start')];
  const proc = procs[0];
  const api = `http://127.0.0.1:${apiPort}`;
  for (let i = 0; ; i++) {
    const res = await request(`${api}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    if (proc.child.exitCode !== null || i > 1200) throw new Error(`sparrow did not start:\n${proc.output()}`);
    await sleep(100);
  }
  const tokenRes = await request(`${api}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.id, client_secret: secret }),
  });
  const token = JSON.parse(tokenRes.text).access_token as string;
  if (!token) throw new Error(`no token: ${tokenRes.text}`);
  // The account's number goes out through the SMPP provider (the sink) with no rate of its own.
  const { rows: numbers } = await db.query<{ number: string }>(
    `UPDATE phone_numbers SET provider = 'smpp', throughput_mps = 1000000 WHERE account_id = $1 RETURNING number`,
    [account.id],
  );
  return {
    name: 'Sparrow',
    apiPort,
    smppPort,
    accountId: account.id,
    token,
    systemId: credential.system_id,
    password,
    sourceNumber: numbers[0].number,
    pids: () => [...procs.map((p) => p.child.pid ?? 0), postmaster],
    cpuParts: o.roles === 'split' ? ['api', 'worker', 'PostgreSQL'] : ['node', 'PostgreSQL'],
    async sent() {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND status = 'sent'`,
        [account.id],
      );
      return rows[0].n;
    },
    statements: () => (o.statements ? topStatements(db) : Promise.resolve([])),
    async stop() {
      for (const p of procs) await stopChild(p.child);
      await db.end();
      await database.stop();
    },
  };
}
