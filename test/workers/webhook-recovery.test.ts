import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { withTx } from '../../src/db/client.ts';
import { claimDueDeliveries, fanOutQueuedEvents } from '../../src/db/queries/webhook-deliveries.ts';
import { emitEvent } from '../../src/domain/events/emit.ts';
import { webhookDelivery } from '../../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../../src/workers/webhook-fanout.ts';
import { body, call, eventually, startTestService, type TestService } from '../helpers.ts';

describe('webhook delivery across workers', () => {
  let svc: TestService;
  let server: http.Server;
  let url: string;
  const got: { id: string; path: string }[] = [];

  before(async () => {
    svc = await startTestService();
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        got.push({ id: String(req.headers['webhook-id']), path: req.url ?? '' });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await svc.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('delivers, with the same webhook-id, what a killed worker had claimed once its lease runs out', async () => {
    const acc = await svc.newAccount();
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/webhooks`, {
      auth: acc.auth,
      json: { url: `${url}/killed`, eventTypes: ['contact-created'] },
    });
    assert.equal(res.statusCode, 200);
    const ids = await withTx(svc.db, async (tx) => {
      const out: string[] = [];
      for (const i of [1, 2, 3]) out.push(await emitEvent(tx, acc.accountId, 'contact-created', { i }));
      return out;
    });
    assert.deepEqual(await fanOutQueuedEvents(svc.db, 100), { events: 3, deliveries: 3 });
    // A worker claims them and dies before sending or recording anything.
    const claimed = await claimDueDeliveries(svc.db, {
      limit: 10,
      perWebhook: 10,
      busy: new Map(),
      leaseMs: 600,
      token: crypto.randomUUID(),
    });
    assert.equal(claimed.length, 3);
    const claimedAt = Date.now();
    svc.startWorkers([webhookFanOut({ idleMs: 20 }), webhookDelivery({ idleMs: 30 })]);
    await eventually(async () => got.filter((g) => g.path === '/killed').length === 3);
    assert.ok(Date.now() - claimedAt >= 500, 'not sent again before the lease ran out');
    assert.deepEqual(
      got
        .filter((g) => g.path === '/killed')
        .map((g) => g.id)
        .sort(),
      [...ids].sort(),
    );
  });

  it('two delivery workers share the work without sending anything twice', async () => {
    const acc = await svc.newAccount();
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/webhooks`, {
      auth: acc.auth,
      json: { url: `${url}/shared`, eventTypes: ['message-status'] },
    });
    const hookId = body(res).data.id;
    // Two more worker sets, as two more processes would run them.
    svc.startWorkers([webhookFanOut({ idleMs: 20 }), webhookDelivery({ idleMs: 20, batchSize: 7 })]);
    svc.startWorkers([webhookFanOut({ idleMs: 20 }), webhookDelivery({ idleMs: 20, batchSize: 5 })]);
    const ids: string[] = [];
    for (let round = 0; round < 10; round++) {
      await withTx(svc.db, async (tx) => {
        for (let i = 0; i < 20; i++)
          ids.push(await emitEvent(tx, acc.accountId, 'message-status', { round, i }));
      });
    }
    await eventually(async () => {
      const p = body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/webhooks/${hookId}/deliveries?limit=1`, {
          auth: acc.auth,
        }),
      );
      const { rows } = await svc.db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'succeeded'`,
        [hookId],
      );
      return p.pagination.totalCount === 200 && rows[0].n === 200;
    }, 20_000);
    const shared = got.filter((g) => g.path === '/shared').map((g) => g.id);
    assert.equal(shared.length, 200);
    assert.deepEqual([...new Set(shared)].sort(), [...ids].sort());
  });
});
