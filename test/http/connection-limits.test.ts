/**
 * Connection caps and timeouts of the HTTP listeners (issue 28): a stranger's connections cannot
 * take a listener from everyone else. Real sockets from several loopback addresses (127.0.0.2,
 * 127.0.0.3 ...: all of 127/8 is the loopback on Linux). Every wait is bounded by a client-side
 * guard that fails the test; no assertion is on a time.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { HttpLimitsConfig } from '../../src/config.ts';
import { startMetricsServer } from '../../src/metrics/serve.ts';
import { freshDatabase, startTestService, type TestService } from '../helpers.ts';
import { type LimitedService, startLimitedService } from '../support/limited-service.ts';

const LIMITS: HttpLimitsConfig = {
  fdLimit: 1024,
  maxConnections: 50,
  maxConnectionsPerAddress: 5,
  headersTimeoutMs: 1000,
  requestTimeoutMs: 2000,
  keepAliveTimeoutMs: 1000,
};
/** What any wait of these tests may last before it fails the test. */
const GUARD_MS = 15_000;

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as net.AddressInfo).port;
}

/** `n` sockets from `from` to the port, each connected (or already closed by the server). */
async function openSockets(port: number, from: string, n: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, () => {
      const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
      s.on('error', () => {});
      sockets.push(s);
      return new Promise<void>((resolve) => {
        s.once('connect', () => resolve());
        s.once('close', () => resolve());
      });
    });
    await Promise.all(batch);
  }
  return sockets;
}

/** Sends a whole request on the socket: 'answered' when bytes come back, 'closed' when the server closes it first. */
function probe(s: net.Socket, path = '/nope'): Promise<'answered' | 'closed'> {
  return new Promise((resolve, reject) => {
    if (s.destroyed) return resolve('closed');
    const guard = setTimeout(
      () => reject(new Error(`no answer and no close within ${GUARD_MS} ms`)),
      GUARD_MS,
    );
    s.once('data', () => {
      clearTimeout(guard);
      resolve('answered');
    });
    s.once('close', () => {
      clearTimeout(guard);
      resolve('closed');
    });
    s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  });
}

async function tally(sockets: net.Socket[]) {
  const outcomes = await Promise.all(sockets.map((s) => probe(s)));
  return {
    answered: outcomes.filter((o) => o === 'answered').length,
    closed: outcomes.filter((o) => o === 'closed').length,
  };
}

/** Resolves when the server closes the socket; rejects after the guard. */
function closedByServer(s: net.Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    if (s.destroyed) return resolve();
    // Read what comes (a 408, say), or the server's FIN would never be seen.
    s.resume();
    const guard = setTimeout(
      () => reject(new Error(`the server did not close the connection within ${GUARD_MS} ms`)),
      GUARD_MS,
    );
    s.once('close', () => {
      clearTimeout(guard);
      resolve();
    });
  });
}

const closeAll = (sockets: net.Socket[]) => {
  for (const s of sockets) s.destroy();
};

describe('HTTP connection caps', () => {
  let svc: TestService;
  let api: number;
  let pub: number;
  before(async () => {
    svc = await startTestService({ http: LIMITS });
    api = await listen(svc.api);
    pub = await listen(svc.externals);
  });
  after(() => svc.close());

  for (const which of ['API', 'public'] as const) {
    it(`closes an address's connections over its cap on the ${which} listener, and answers another address`, async () => {
      const port = which === 'API' ? api : pub;
      const flood = await openSockets(port, '127.0.0.2', 12);
      try {
        assert.deepEqual(await tally(flood), { answered: 5, closed: 7 });
        const [other] = await openSockets(port, '127.0.0.3', 1);
        assert.equal(await probe(other), 'answered');
        other.destroy();
      } finally {
        closeAll(flood);
      }
    });
  }

  it('keeps the last tenth of a listener for addresses that hold few connections', async () => {
    const s = await startTestService({ http: { ...LIMITS, maxConnectionsPerAddress: 1000 } });
    try {
      const port = await listen(s.api);
      const flood = await openSockets(port, '127.0.0.2', 50);
      try {
        // 90 % of 50: the flooding address gets 45, the 5 others are closed.
        assert.deepEqual(await tally(flood), { answered: 45, closed: 5 });
        const others = await openSockets(port, '127.0.0.3', 2);
        assert.deepEqual(await tally(others), { answered: 2, closed: 0 });
        closeAll(others);
      } finally {
        closeAll(flood);
      }
    } finally {
      await s.close();
    }
  });

  it('does not cap a trusted proxy by address (TRUST_PROXY), only in total', async () => {
    const s = await startTestService({ http: LIMITS, trustProxy: '127.0.0.2' });
    try {
      const port = await listen(s.api);
      const fromProxy = await openSockets(port, '127.0.0.2', 12);
      const fromOther = await openSockets(port, '127.0.0.4', 12);
      try {
        assert.deepEqual(await tally(fromProxy), { answered: 12, closed: 0 });
        assert.deepEqual(await tally(fromOther), { answered: 5, closed: 7 });
      } finally {
        closeAll([...fromProxy, ...fromOther]);
      }
    } finally {
      await s.close();
    }
  });

  it('closes a connection that sends nothing, and one that sends its headers slowly, after the header timeout', async () => {
    const [idle] = await openSockets(api, '127.0.0.5', 1);
    const [slow] = await openSockets(api, '127.0.0.5', 1);
    slow.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    // Slowloris: a header line every 200 ms, never the blank line that ends them.
    const drip = setInterval(() => slow.write(`X-Slow-${Date.now()}: 1\r\n`), 200);
    try {
      await Promise.all([closedByServer(idle), closedByServer(slow)]);
    } finally {
      clearInterval(drip);
      closeAll([idle, slow]);
    }
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const [s] = await openSockets(api, '127.0.0.6', 1);
    assert.equal(await probe(s, '/healthz'), 'answered');
    await closedByServer(s);
  });
});

describe('metrics listener connection caps', () => {
  let svc: TestService;
  let metrics: { port: number; close: () => Promise<void> };
  before(async () => {
    svc = await startTestService();
    metrics = await startMetricsServer(svc.db, svc.ctx.metrics, { host: '127.0.0.1', port: 0, token: '' });
  });
  after(async () => {
    await metrics.close();
    await svc.close();
  });

  it('holds at most 16 connections of one address', async () => {
    const flood = await openSockets(metrics.port, '127.0.0.2', 20);
    try {
      assert.deepEqual(await tally(flood), { answered: 16, closed: 4 });
      const [other] = await openSockets(metrics.port, '127.0.0.3', 1);
      assert.equal(await probe(other), 'answered');
      other.destroy();
    } finally {
      closeAll(flood);
    }
  });
});

/** One request from `from` without keep-alive: its status; fails after the guard. */
function request(port: number, from: string, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: from,
        agent: false,
        timeout: GUARD_MS,
        headers: body
          ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
          : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${GUARD_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

describe('3,000 slow connections from one address to the service as npm start runs it (ulimit -n 1024)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: LimitedService;
  before(async () => {
    database = await freshDatabase();
    svc = await startLimitedService({ env: { DATABASE_URL: database.url }, fdLimit: 1024 });
  });
  after(async () => {
    await svc?.stop();
    await database?.drop();
  });

  it('answers another address on the API and public listeners and the token endpoint, and no worker runs out of files', async () => {
    const flood = await openSockets(svc.port, '127.0.0.2', 3000);
    for (const s of flood) if (!s.destroyed) s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const token = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: svc.clientId,
      client_secret: svc.clientSecret,
    });
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal(await request(svc.port, '127.0.0.3', 'GET', '/healthz'), 200);
        assert.equal(await request(svc.externalsPort, '127.0.0.3', 'GET', '/healthz'), 200);
        assert.equal(await request(svc.port, '127.0.0.3', 'POST', '/oauth2/token', token), 200);
      }
      assert.ok(svc.alive(), 'the service is running');
      assert.doesNotMatch(svc.output(), /EMFILE/);
    } finally {
      closeAll(flood);
    }
  });
});
