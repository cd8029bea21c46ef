/**
 * The server side of `npm run bench:token`, in its own process: the real API listener with the
 * default configuration, and two API clients (the legitimate one and the one the flood names).
 */
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool } from '../src/db/client.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { buildApiApp } from '../src/http/app.ts';

const url = process.env.BENCH_DATABASE_URL!;
const config = { ...loadConfig({}), databaseUrl: url };
const db = createPool(url, 10);
const ctx = createContext(config, db);

const { account } = await createAccount(db, { name: 'bench' });
const legit = await createClient(db, account.id, { name: 'legitimate' });
const target = await createClient(db, account.id, { name: 'flooded' });

const api = await buildApiApp(ctx);
await api.listen({ port: 0, host: '127.0.0.1' });
const port = (api.server.address() as { port: number }).port;
process.stdout.write(
  `${JSON.stringify({
    url: `http://127.0.0.1:${port}/oauth2/token`,
    legit: { id: legit.client.id, secret: legit.secret },
    flooded: { id: target.client.id },
  })}\n`,
);
process.on('SIGTERM', async () => {
  await api.close();
  await ctx.close();
  await db.end();
  process.exit(0);
});
