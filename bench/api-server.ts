/**
 * The server side of `npm run bench:api`, run in its own process: the real API listener and, on a
 * second port, a bare Fastify route doing the same primary-key lookup through the same pool.
 */
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool } from '../src/db/client.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { buildApiApp } from '../src/http/app.ts';
import { newId } from '../src/util/ids.ts';

const url = process.env.BENCH_DATABASE_URL!;
const config = {
  ...loadConfig({ RATE_LIMIT_PER_MINUTE: '1000000000' }),
  databaseUrl: url,
  redisUrl: process.env.REDIS_URL,
};
const db = createPool(url, 10);
const ctx = createContext(config, db);

const { account } = await createAccount(db, { name: 'bench' });
const { client } = await createClient(db, account.id);
const token = await ctx.tokens.issue(
  { id: client.id, name: client.name, accountId: account.id },
  client.scopes,
);
const contactId = newId();
await db.query(
  `INSERT INTO contacts (account_id, id, first_name, last_name, email, mobile_number, mobile_country, mobile_valid, mobile_line_type, attributes)
   VALUES ($1, $2, 'Ada', 'Lovelace', 'ada@example.com', '+12025550123', 'US', true, 'mobile', '{"plan":"gold"}')`,
  [account.id, contactId],
);

const api = await buildApiApp(ctx);
await api.listen({ port: 0, host: '127.0.0.1' });

const bare = Fastify({ logger: false });
bare.get<{ Params: { accountId: string; contactId: string } }>(
  '/bare/:accountId/contacts/:contactId',
  async (req) => {
    // Prepared like Sparrow's own read path, so the ratio measures auth, scope, schema and envelope only.
    const { rows } = await db.query({
      name: 'bare-contact',
      text: 'SELECT * FROM contacts WHERE account_id = $1 AND id = $2',
      values: [req.params.accountId, req.params.contactId],
    });
    return rows[0];
  },
);
await bare.listen({ port: 0, host: '127.0.0.1' });

const port = (app: { server: { address(): unknown } }) => (app.server.address() as { port: number }).port;
process.stdout.write(
  `${JSON.stringify({ api: `http://127.0.0.1:${port(api)}/v1/accounts/${account.id}/contacts/${contactId}`, bare: `http://127.0.0.1:${port(bare)}/bare/${account.id}/contacts/${contactId}`, token })}\n`,
);
process.on('SIGTERM', async () => {
  await api.close();
  await bare.close();
  await ctx.close();
  await db.end();
  process.exit(0);
});
