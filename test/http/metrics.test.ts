import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { testPort } from '../support/ports.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

/** Parses Prometheus text: series (name{labels}) → value. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** The sum of every series of `name` whose labels include each of `labels` (k="v"). */
function sum(series: Map<string, number>, name: string, labels: string[] = []): number {
  let total = 0;
  for (const [k, v] of series) {
    const base = k.split('{', 1)[0];
    if (base !== name) continue;
    if (labels.every((l) => k.includes(l))) total += v;
  }
  return total;
}

describe('metrics: not exposed by default', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('GET /metrics is no route of the API listener without METRICS_TOKEN', async () => {
    const res = await call(svc.api, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 404);
    assert.equal(body(res).error.code, 'HTTP-404');
    const pub = await call(svc.externals, 'GET', '/metrics');
    assert.equal(pub.statusCode, 404);
  });
});

describe('metrics on the API listener behind METRICS_TOKEN', () => {
  let svc: TestService;
  let a: TestAccount;
  let receiver: http.Server;
  let hooks = 0;
  const scrape = async () => {
    const res = await call(svc.api, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    return parse(res.body);
  };

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hooks++;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    svc = await startTestService({ metrics: { port: 0, token: TOKEN } });
    a = await svc.newAccount({ balance: 100 });
  });
  after(async () => {
    await svc.close();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  it('is not served on the public listener, token or not', async () => {
    const res = await call(svc.externals, 'GET', '/metrics', {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.statusCode, 404);
  });

  it('answers 401 in the error envelope without the token, with a wrong one, or with an OAuth token', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      a.auth,
      { authorization: TOKEN },
    ]) {
      const res = await call(svc.api, 'GET', '/metrics', { headers });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.equal(body(res).error.code, 'AUTH-001');
      assert.doesNotMatch(res.body, /sparrow_/);
    }
  });

  it('serves every metric family, and request, send, webhook and queue figures move', async () => {
    const first = await scrape();
    for (const name of [
      'sparrow_info',
      'sparrow_http_requests_total',
      'sparrow_http_request_duration_seconds_bucket',
      'sparrow_db_pool_connections',
      'sparrow_db_pool_max',
      'sparrow_queue_depth',
      'sparrow_queue_oldest_age_seconds',
      'sparrow_queue_scrape_success',
      'sparrow_process_cpu_user_seconds_total',
    ]) {
      assert.ok(
        [...first.keys()].some((k) => k.split('{', 1)[0] === name),
        `${name} is served`,
      );
    }
    assert.equal(first.get('sparrow_queue_scrape_success'), 1);
    for (const q of ['messages_queued', 'webhook_deliveries', 'dispatch_inflight', 'campaigns_due']) {
      assert.ok(first.has(`sparrow_queue_depth{queue="${q}"}`), `queue ${q}`);
    }
    const route = 'route="/v1/accounts/:accountId/messages"';
    const before = sum(first, 'sparrow_http_requests_total', [route, 'method="POST"']);

    const port = (receiver.address() as AddressInfo).port;
    const hook = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/webhooks`, {
      auth: a.auth,
      json: { url: `http://127.0.0.1:${port}/hook`, eventTypes: ['message-sent'] },
    });
    assert.equal(hook.statusCode, 200, hook.body);
    // Queued with no worker running: the queue gauge counts them.
    for (let i = 0; i < 3; i++) {
      const send = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
        auth: a.auth,
        json: { contacts: [{ mobile: { number: `+1202555${String(1000 + i)}` } }], template: 'Hello' },
      });
      assert.equal(send.statusCode, 200, send.body);
    }
    const queued = await scrape();
    assert.ok(
      (queued.get('sparrow_queue_depth{queue="messages_queued"}') ?? 0) >= 3,
      'queued messages counted',
    );
    assert.equal(
      sum(queued, 'sparrow_http_requests_total', [route, 'method="POST"', 'status="200"']) - before,
      3,
    );
    // One series per route pattern: no account id, message id or query string in any label.
    for (const k of queued.keys()) assert.ok(!k.includes(a.accountId), `no raw URL in ${k}`);

    svc.startWorkers();
    await eventually(async () => hooks >= 3, 60_000, 50);
    const after = await eventually(async () => {
      const m = await scrape();
      return sum(m, 'sparrow_webhook_attempts_total', ['outcome="succeeded"']) >= 3 ? m : undefined;
    });
    assert.ok(sum(after, 'sparrow_messages_submitted_total', ['outcome="sent"']) >= 3, 'sends counted');
    assert.equal(after.get('sparrow_queue_depth{queue="messages_queued"}'), 0, 'the queue drained');
    assert.ok(sum(after, 'sparrow_webhook_attempt_duration_seconds_count') >= 3);
    assert.ok(
      (after.get('sparrow_db_pool_connections{state="total"}') ?? 0) >= 1,
      'pool connections counted',
    );
    assert.equal(after.get('sparrow_db_pool_max'), 10);
    // The simulator's receipts arrive after its delivery delay.
    await eventually(async () => sum(await scrape(), 'sparrow_receipts_total', ['status="delivered"']) >= 3);
    const last = await scrape();
    assert.ok(sum(last, 'sparrow_receipt_lag_seconds_count') >= 3, 'receipt lag observed');
  });

  it('a token shorter than 16 characters is refused at start-up', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    assert.deepEqual(loadConfig({}).metrics, { port: 0, token: '' }, 'off unless asked for');
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), /METRICS_TOKEN must be at least 16/);
    assert.throws(() => loadConfig({ METRICS_PORT: 'x' }), /METRICS_PORT must be an integer/);
  });
});

describe('metrics on METRICS_PORT: a `sparrow worker` process', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('serves GET /metrics on its own port, to the token only, and nothing else there', async () => {
    const port = await testPort();
    const child = spawn(process.execPath, [path.resolve('bin/sparrow.js'), 'worker'], {
      env: {
        ...process.env,
        DATABASE_URL: svc.config.databaseUrl!,
        METRICS_PORT: String(port),
        METRICS_TOKEN: TOKEN,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    try {
      const url = `http://127.0.0.1:${port}/metrics`;
      const res = await eventually(
        () => fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } }).catch(() => undefined),
        120_000,
        100,
      );
      assert.equal(res.status, 200);
      const m = parse(await res.text());
      assert.equal(m.get('sparrow_info{role="worker"}'), 1);
      assert.equal(m.get('sparrow_queue_scrape_success'), 1);
      assert.equal(m.get('sparrow_db_pool_max'), 10);
      const denied = await fetch(url);
      assert.equal(denied.status, 401);
      assert.equal((await denied.json()).error.code, 'AUTH-001');
      const other = await fetch(`http://127.0.0.1:${port}/v1/accounts`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(other.status, 404);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
