import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { type AppContext, createContext } from '../../src/context.ts';
import { createPool, type Db } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/create-account.ts';
import { createClient } from '../../src/domain/auth/create-client.ts';
import { buildApiApp, buildExternalsApp } from '../../src/http/app.ts';
import { body, call, eventually, freshDatabase, within } from '../helpers.ts';

/**
 * A loopback TCP proxy to PostgreSQL that can stop forwarding: while stalled, bytes in both
 * directions wait in the proxy (a server that stopped answering, as under SIGSTOP or a dead link),
 * and new connections are accepted but get no answer.
 */
class StallableProxy {
  private pairs = new Set<[net.Socket, net.Socket]>();
  private stalled = false;
  private server: net.Server;
  constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.pairs.add(pair);
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      for (const s of pair) s.on('error', close).on('close', close);
      if (!this.stalled) this.flow(pair);
    });
  }
  private flow([a, b]: [net.Socket, net.Socket]) {
    a.pipe(b);
    b.pipe(a);
  }
  listen(): Promise<number> {
    return new Promise((resolve) =>
      this.server.listen(0, '127.0.0.1', () => resolve((this.server.address() as net.AddressInfo).port)),
    );
  }
  stall() {
    this.stalled = true;
    for (const [a, b] of this.pairs) {
      a.unpipe(b);
      b.unpipe(a);
      a.pause();
      b.pause();
    }
  }
  resume() {
    this.stalled = false;
    for (const pair of this.pairs) this.flow(pair);
  }
  close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('a stalled database', () => {
  let proxy: StallableProxy;
  let drop: () => Promise<void>;
  let db: Db;
  let ctx: AppContext;
  let api: FastifyInstance;
  let externals: FastifyInstance;
  let accountUrl: string;
  let auth: { authorization: string };

  before(async () => {
    const database = await freshDatabase();
    drop = database.drop;
    const real = new URL(database.url);
    proxy = new StallableProxy({ host: real.hostname, port: Number(real.port) });
    const viaProxy = new URL(database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(await proxy.listen());
    const config = {
      ...loadConfig({ ...process.env, DATABASE_URL: viaProxy.toString() }),
      redisUrl: undefined,
      db: { connectMs: 2_000, statementMs: 30_000, bulkStatementMs: 600_000 },
    };
    db = createPool(viaProxy.toString(), 5, config.db);
    ctx = createContext(config, db);
    api = await buildApiApp(ctx);
    externals = await buildExternalsApp(ctx);
    const { account } = await createAccount(db, { name: 'Stall' });
    const { client } = await createClient(db, account.id, { name: 'Stall client' });
    const token = await ctx.tokens.issue(
      { id: client.id, name: client.name, accountId: account.id },
      client.scopes,
    );
    accountUrl = `/v1/accounts/${account.id}`;
    auth = { authorization: `Bearer ${token}` };
  });
  after(async () => {
    proxy.resume();
    await api.close();
    await externals.close();
    await ctx.close();
    await db.end();
    await proxy.close();
    await drop();
  });

  it('answers 503 SYS-503 while it is stalled, keeps /healthz up, and recovers by itself', async () => {
    assert.equal((await call(api, 'GET', accountUrl, { auth })).statusCode, 200);

    proxy.stall();
    // A request that reaches a pooled connection of the stalled server does not hang.
    const inFlight = await within(call(api, 'GET', accountUrl, { auth }), 15_000, 'request during the stall');
    assert.equal(inFlight.statusCode, 503, inFlight.body);
    assert.equal(body(inFlight).success, false);
    assert.equal(body(inFlight).error.code, 'SYS-503');

    const later = await within(call(api, 'GET', accountUrl, { auth }), 15_000, 'later request');
    assert.equal(later.statusCode, 503);
    assert.equal(body(later).error.code, 'SYS-503');
    for (const app of [api, externals]) {
      const health = await within(call(app, 'GET', '/healthz'), 15_000, '/healthz');
      assert.equal(health.statusCode, 200);
      const ready = await within(call(app, 'GET', '/readyz'), 15_000, '/readyz');
      assert.equal(ready.statusCode, 503);
      assert.equal(body(ready).error.code, 'SYS-503');
    }

    proxy.resume();
    await eventually(
      async () => (await call(api, 'GET', accountUrl, { auth })).statusCode === 200,
      30_000,
      200,
    );
    for (const app of [api, externals]) assert.equal((await call(app, 'GET', '/readyz')).statusCode, 200);
  });
});
