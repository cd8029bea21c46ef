/**
 * Issue 25: a subscription that hangs only delays itself. One account's six subscriptions that
 * never answer (each with a backlog) must not take every request slot and every held claim of the
 * process: another account's first attempt goes out while they still hang.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { withTx } from '../../src/db/client.ts';
import { emitEvent } from '../../src/domain/events/emit.ts';
import { webhookDelivery } from '../../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../../src/workers/webhook-fanout.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('webhook delivery is fair between accounts', () => {
  let svc: TestService;
  let server: http.Server;
  let port = 0;
  const hanging = new Set<http.ServerResponse>();
  const received: { path: string; eventId: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        received.push({ path, eventId: JSON.parse(Buffer.concat(chunks).toString()).eventId });
        if (path.startsWith('/hang/')) hanging.add(res);
        else res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    svc = await startTestService();
    // The production pump (64 requests, 16 per subscription), with a timeout longer than the test.
    svc.startWorkers([webhookFanOut({ idleMs: 20 }), webhookDelivery({ timeoutMs: 120_000, idleMs: 30 })]);
  });
  after(async () => {
    for (const r of hanging) r.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await svc.close();
  });

  const subscribe = async (account: TestAccount, path: string) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${account.accountId}/webhooks`, {
      auth: account.auth,
      json: { url: `http://127.0.0.1:${port}${path}`, eventTypes: ['contact-created'] },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const emit = (accountId: string, count: number) =>
    withTx(svc.db, async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++)
        ids.push(await emitEvent(tx, accountId, 'contact-created', { id: `c${i}` }));
      return ids;
    });

  it("another account's first attempt goes out while one account's six subscriptions hang", async () => {
    const b = await svc.newAccount();
    for (let i = 0; i < 6; i++) await subscribe(b, `/hang/${i}`);
    await emit(b.accountId, 100); // 600 deliveries, every one of them hangs
    await eventually(async () => hanging.size >= 16);
    const a = await svc.newAccount();
    await subscribe(a, '/ok/a');
    const [id] = await emit(a.accountId, 1);
    // Before: all 64 slots (and every held claim) were B's until their timeouts: this waited 120 s.
    await eventually(async () => received.some((r) => r.path === '/ok/a' && r.eventId === id), 15_000);
    assert.ok(hanging.size < 64, `B's requests hold ${hanging.size} of the 64 slots`);
    const deliveries = body(
      await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/webhooks`, { auth: b.auth }),
    ).data;
    assert.equal(deliveries.length, 6);
  });
});
