/**
 * The server side of `npm run bench:signin`, in its own process: the real API listener with the
 * default configuration, one account and its administrator (e-mail and password).
 */
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool } from '../src/db/client.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { ensureUser } from '../src/domain/users/members.ts';
import { buildApiApp } from '../src/http/app.ts';

const url = process.env.BENCH_DATABASE_URL!;
const config = { ...loadConfig({}), databaseUrl: url };
const db = createPool(url, 10);
const ctx = createContext(config, db);

const { account } = await createAccount(db, { name: 'bench' });
const admin = { email: 'admin@bench.example', password: 'the administrator’s password' };
await ensureUser(db, account.id, { ...admin, role: 'Administrator' }, { id: 'bench' });

const api = await buildApiApp(ctx);
await api.listen({ port: 0, host: '127.0.0.1' });
const port = (api.server.address() as { port: number }).port;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/console/api/session`, admin })}\n`);
process.on('SIGTERM', async () => {
  await api.close();
  await ctx.close();
  await db.end();
  process.exit(0);
});
