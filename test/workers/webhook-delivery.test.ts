import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { withTx } from '../../src/db/client.ts';
import { emitEvent } from '../../src/domain/events/emit.ts';
import type { EventType } from '../../src/schemas/enums.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { webhookDelivery } from '../../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../../src/workers/webhook-fanout.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

type Mode =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  | { kind: 'hang' };

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  json: {
    type: string;
    timestamp: string;
    accountId: string;
    eventId: string;
    data: Record<string, unknown>;
  };
  at: number;
}

/** A destination of our own: per-path behaviour, every request recorded. */
async function startReceiver() {
  const modes = new Map<string, Mode>();
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, raw, json: JSON.parse(raw), at: Date.now() });
      const mode = modes.get(path) ?? { kind: 'ok' };
      if (mode.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (mode.kind === 'status') {
        res.writeHead(mode.status, mode.headers).end('nope');
        return;
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    set: (path: string, mode: Mode) => modes.set(path, mode),
    at: (path: string) => received.filter((r) => r.path === path),
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('webhook delivery', () => {
  let svc: TestService;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  const logs: string[] = [];
  let n = 0;

  before(async () => {
    svc = await startTestService();
    rx = await startReceiver();
    svc.startWorkers([
      webhookFanOut({ idleMs: 20 }),
      webhookDelivery({
        policy: { schedule: [0, 50, 100, 150, 150, 150, 150, 150], jitter: 0.1, disableAfterMs: 60_000 },
        timeoutMs: 400,
        idleMs: 30,
        log: (m) => logs.push(m),
      }),
    ]);
  });
  after(async () => {
    await svc.close();
    await rx.close();
  });

  /** A new account subscribed (through the API) at a fresh receiver path. */
  async function subscribe(eventTypes: EventType[] = ['contact-created'], acc?: TestAccount) {
    const account = acc ?? (await svc.newAccount());
    const path = `/hook/${++n}`;
    const res = await call(svc.api, 'POST', `/v1/accounts/${account.accountId}/webhooks`, {
      auth: account.auth,
      json: { url: rx.url(path), eventTypes },
    });
    assert.equal(res.statusCode, 200);
    const hook = body(res).data as { id: string; secret: string };
    return { account, path, hook };
  }

  async function emit(accountId: string, type: EventType, data: object, count = 1): Promise<string[]> {
    return withTx(svc.db, async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) ids.push(await emitEvent(tx, accountId, type, { ...data, i }));
      return ids;
    });
  }

  const deliveries = async (s: { account: TestAccount; hook: { id: string } }) =>
    body(
      await call(
        svc.api,
        'GET',
        `/v1/accounts/${s.account.accountId}/webhooks/${s.hook.id}/deliveries?limit=100`,
        {
          auth: s.account.auth,
        },
      ),
    );

  it('delivers the whole message in message-sent and message-status events the dispatcher writes', async () => {
    const s = await subscribe(['message-sent', 'message-status']);
    const sent = await call(svc.api, 'POST', `/v1/accounts/${s.account.accountId}/messages`, {
      auth: s.account.auth,
      json: {
        contacts: [{ mobile: { number: '+12015550188' }, firstName: 'Ida' }],
        template: 'Hi {{{firstName}}}',
      },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const m = body(sent).data.messages[0];
    // The worker set above does not include the dispatcher: run its rounds here.
    const got = await eventually(async () => {
      await dispatch.run(svc.ctx, new AbortController().signal);
      const r = rx.at(s.path);
      return r.length >= 2 && r;
    });
    const byType = Object.fromEntries(got.map((r) => [r.json.type, r.json.data]));
    const expected = {
      id: m.id,
      jobId: body(sent).data.jobId,
      conversation: { id: m.conversation.id },
      phoneNumber: m.phoneNumber,
      to: '+12015550188',
      outgoing: true,
      system: false,
      encoding: 'GSM-7',
      segments: 1,
      price: m.price,
    };
    // The published payload: the text in `message`; the whole message in `messageObject`.
    assert.equal(byType['message-sent'].message, 'Hi Ida');
    const sentMessage = byType['message-sent'].messageObject as Record<string, unknown>;
    assert.deepEqual(
      { ...sentMessage, providerMessageId: undefined },
      {
        ...expected,
        status: 'sent',
        providerMessageId: undefined,
        // The provider that took it, as the Message shows it.
        provider: 'simulator',
      },
    );
    assert.match(String(sentMessage.providerMessageId), /^sim-/);
    assert.deepEqual(byType['message-sent'].contact, { id: m.contact.id, mobile: m.contact.mobile });
    assert.equal(byType['message-sent'].contact.mobile.number, '+12015550188');
    assert.equal(byType['message-sent'].contact.mobile.country, 'US');
    assert.equal(byType['message-sent'].status, 'sent');
    assert.equal(byType['message-status'].message, 'Hi Ida');
    const statusMessage = byType['message-status'].messageObject as Record<string, unknown>;
    assert.equal(statusMessage.status, 'delivered');
    assert.equal(statusMessage.provider, 'simulator');
    const shown = body(
      await call(svc.api, 'GET', `/v1/accounts/${s.account.accountId}/messages/${m.id}`, {
        auth: s.account.auth,
      }),
    ).data;
    assert.equal(shown.provider, sentMessage.provider, 'the event shows the provider the Message shows');
    assert.equal(statusMessage.segments, 1);
    assert.equal(byType['message-status'].status, 'delivered');
  });

  it('delivers an event the API emits, signed so standardwebhooks verifies it', async () => {
    const s = await subscribe(['contact-created']);
    const res = await call(svc.api, 'POST', `/v1/accounts/${s.account.accountId}/contacts`, {
      auth: s.account.auth,
      json: { firstName: 'Ada', mobile: { number: '+14155550123' } },
    });
    assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
    const contactId = body(res).data[0].id;
    const [got] = await eventually(async () => rx.at(s.path).length > 0 && rx.at(s.path));
    const verified = new StandardWebhook(s.hook.secret).verify(got.raw, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    }) as Received['json'];
    assert.equal(verified.type, 'contact-created');
    assert.equal(verified.accountId, s.account.accountId);
    assert.equal(got.headers['webhook-id'], verified.eventId);
    assert.equal(verified.data.id, contactId);
    assert.match(verified.timestamp, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.equal(got.headers['content-type'], 'application/json');
  });

  it('delivers only subscribed types of its own account, and nothing of a rolled-back change', async () => {
    const s = await subscribe(['contact-removed']);
    const other = await subscribe(['contact-removed']);
    await emit(s.account.accountId, 'contact-created', { id: 'ignored' });
    await withTx(svc.db, async (tx) => {
      await emitEvent(tx, s.account.accountId, 'contact-removed', { id: 'rolled-back' });
      throw new Error('roll back');
    }).catch(() => {});
    const [wanted] = await emit(s.account.accountId, 'contact-removed', { id: 'kept' });
    await eventually(async () => rx.at(s.path).length > 0);
    // A later event of the same subscription arriving proves the earlier ones were not queued.
    const [later] = await emit(s.account.accountId, 'contact-removed', { id: 'later' });
    await eventually(async () => rx.at(s.path).some((r) => r.json.eventId === later));
    assert.deepEqual(
      rx.at(s.path).map((r) => r.json.eventId),
      [wanted, later],
    );
    assert.equal(rx.at(other.path).length, 0);
  });

  it('retries through 500s and timeouts with the same webhook-id, and loses nothing once the receiver is back', async () => {
    const s = await subscribe(['message-status']);
    rx.set(s.path, { kind: 'status', status: 500 });
    const ids = await emit(s.account.accountId, 'message-status', { message: { id: 'm' } }, 10);
    await eventually(async () => new Set(rx.at(s.path).map((r) => r.json.eventId)).size === 10);
    rx.set(s.path, { kind: 'hang' });
    const more = await emit(s.account.accountId, 'message-status', { message: { id: 'm2' } }, 5);
    await eventually(async () => more.every((id) => rx.at(s.path).some((r) => r.json.eventId === id)));
    rx.set(s.path, { kind: 'ok' });
    const all = [...ids, ...more];
    await eventually(async () => {
      const page = await deliveries(s);
      return (
        page.data.length === 15 &&
        page.data.every((d: { status: string }) => d.status === 'succeeded') &&
        page
      );
    }, 20_000);
    const got = rx.at(s.path);
    for (const id of all) {
      const copies = got.filter((r) => r.json.eventId === id);
      assert.ok(copies.length >= 2, `event ${id} was retried`);
      assert.ok(copies.every((c) => c.headers['webhook-id'] === id));
    }
    const page = await deliveries(s);
    const first = page.data.find((d: { eventId: string }) => d.eventId === ids[0]);
    assert.equal(first.attempts[0].statusCode, 500);
    assert.equal(first.attempts.at(-1).statusCode, 200);
    assert.ok(first.attempts.every((a: { durationMs: number }) => Number.isInteger(a.durationMs)));
    const slow = page.data.find((d: { eventId: string }) => d.eventId === more[0]);
    assert.ok(
      slow.attempts.some(
        (a: { error?: string; statusCode?: number }) =>
          !('statusCode' in a) && /no response/.test(a.error ?? ''),
      ),
    );
  });

  it('honours Retry-After on 429', async () => {
    const s = await subscribe(['contact-updated']);
    rx.set(s.path, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    const [id] = await emit(s.account.accountId, 'contact-updated', { id: 'c' });
    await eventually(async () => rx.at(s.path).length >= 1);
    rx.set(s.path, { kind: 'ok' });
    await eventually(async () => rx.at(s.path).length >= 2, 10_000);
    const [first, second] = rx.at(s.path);
    assert.equal(second.json.eventId, id);
    // The schedule alone would retry after ~50 ms; Retry-After: 1 holds it back a second.
    assert.ok(second.at - first.at >= 900, `retried after ${second.at - first.at} ms`);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const s = await subscribe(['contact-opt-in']);
    rx.set(s.path, { kind: 'status', status: 302, headers: { location: rx.url('/elsewhere') } });
    await emit(s.account.accountId, 'contact-opt-in', { contact: { id: 'c' } });
    const page = await eventually(async () => {
      const p = await deliveries(s);
      return p.data[0]?.attempts.length >= 2 && p;
    });
    assert.equal(page.data[0].attempts[0].statusCode, 302);
    assert.match(page.data[0].attempts[0].error, /redirect/);
    assert.equal(rx.at('/elsewhere').length, 0);
    rx.set(s.path, { kind: 'ok' });
  });

  it('disables the subscription on 410 and stops sending', async () => {
    const s = await subscribe(['contact-opt-out']);
    rx.set(s.path, { kind: 'status', status: 410 });
    await emit(s.account.accountId, 'contact-opt-out', { contact: { id: 'c' } });
    const hook = await eventually(async () => {
      const h = body(
        await call(svc.api, 'GET', `/v1/accounts/${s.account.accountId}/webhooks/${s.hook.id}`, {
          auth: s.account.auth,
        }),
      ).data;
      return h.status === 'disabled' && h;
    });
    assert.match(hook.disabled.reason, /410/);
    const page = await deliveries(s);
    assert.equal(page.data[0].status, 'failed');
    assert.equal(rx.at(s.path).length, 1);
    // Logged after the disable commits: the API can show it first.
    await eventually(async () => logs.some((l) => l.includes(s.hook.id) && /disabled/.test(l)));
    // Events after the disable are not queued for it; re-enabling resumes with new events.
    await emit(s.account.accountId, 'contact-opt-out', { contact: { id: 'c2' } });
    rx.set(s.path, { kind: 'ok' });
    await call(svc.api, 'PUT', `/v1/accounts/${s.account.accountId}/webhooks/${s.hook.id}`, {
      auth: s.account.auth,
      json: { status: 'active' },
    });
    const [after] = await emit(s.account.accountId, 'contact-opt-out', { contact: { id: 'c3' } });
    await eventually(async () => rx.at(s.path).some((r) => r.json.eventId === after));
    assert.equal(rx.at(s.path).length, 2);
  });

  it('signs with both secrets for a while after a rotation', async () => {
    const s = await subscribe(['conversation-started']);
    const rotated = body(
      await call(svc.api, 'POST', `/v1/accounts/${s.account.accountId}/webhooks/${s.hook.id}/rotate-secret`, {
        auth: s.account.auth,
      }),
    ).data;
    await emit(s.account.accountId, 'conversation-started', { conversation: { id: 'x' } });
    const [got] = await eventually(async () => rx.at(s.path).length > 0 && rx.at(s.path));
    const headers = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.ok(new StandardWebhook(rotated.secret).verify(got.raw, headers));
    assert.ok(new StandardWebhook(s.hook.secret).verify(got.raw, headers));
  });

  it('replays a delivery with the same webhook-id', async () => {
    const s = await subscribe(['conversation-closed']);
    const [id] = await emit(s.account.accountId, 'conversation-closed', { conversation: { id: 'x' } });
    const delivery = await eventually(async () => {
      const p = await deliveries(s);
      return p.data[0]?.status === 'succeeded' && p.data[0];
    });
    const res = await call(
      svc.api,
      'POST',
      `/v1/accounts/${s.account.accountId}/webhooks/${s.hook.id}/deliveries/${delivery.id}/replay`,
      {
        auth: s.account.auth,
      },
    );
    assert.equal(res.statusCode, 200);
    assert.equal(body(res).data.status, 'pending');
    await eventually(async () => rx.at(s.path).length === 2);
    assert.deepEqual(
      rx.at(s.path).map((r) => r.headers['webhook-id']),
      [id, id],
    );
    const after = await eventually(async () => {
      const p = await deliveries(s);
      return p.data[0]?.status === 'succeeded' && p.data[0];
    });
    assert.equal(after.attemptCount, 2);
  });

  it("does not replay another account's delivery", async () => {
    const s = await subscribe(['contact-created']);
    const other = await svc.newAccount();
    await emit(s.account.accountId, 'contact-created', { id: 'x' });
    const delivery = await eventually(async () => (await deliveries(s)).data[0]);
    const res = await call(
      svc.api,
      'POST',
      `/v1/accounts/${other.accountId}/webhooks/${s.hook.id}/deliveries/${delivery.id}/replay`,
      {
        auth: other.auth,
      },
    );
    assert.equal(res.statusCode, 404);
  });

  it('one slow destination does not hold back the others', async () => {
    const slow = await subscribe(['message-sent']);
    const fast = await subscribe(['message-sent']);
    rx.set(slow.path, { kind: 'hang' });
    await emit(slow.account.accountId, 'message-sent', { message: { id: 's' } }, 40);
    await eventually(async () => rx.at(slow.path).length >= 10);
    const ids = await emit(fast.account.accountId, 'message-sent', { message: { id: 'f' } }, 20);
    await eventually(async () => ids.every((id) => rx.at(fast.path).some((r) => r.json.eventId === id)));
    // Fast ones got through while the slow destination still had deliveries waiting.
    const pending = (await deliveries(slow)).data.filter((d: { status: string }) => d.status === 'pending');
    assert.ok(pending.length > 0);
    rx.set(slow.path, { kind: 'ok' });
  });

  it('disables a subscription that keeps failing past the limit, and announces it', async () => {
    const svcPolicyLimitMs = 60_000;
    const s = await subscribe(['contact-created']);
    rx.set(s.path, { kind: 'status', status: 503 });
    await emit(s.account.accountId, 'contact-created', { id: 'x' });
    await eventually(async () => rx.at(s.path).length >= 1);
    // Pretend the failures started longer ago than the limit.
    await svc.db.query(
      `UPDATE webhooks SET failing_since = now() - $2 * interval '1 millisecond' WHERE id = $1`,
      [s.hook.id, svcPolicyLimitMs + 1000],
    );
    // The next failed attempt (a retry of x, or y's first) finds the run of failures too long.
    await emit(s.account.accountId, 'contact-created', { id: 'y' });
    const hook = await eventually(async () => {
      const h = body(
        await call(svc.api, 'GET', `/v1/accounts/${s.account.accountId}/webhooks/${s.hook.id}`, {
          auth: s.account.auth,
        }),
      ).data;
      return h.status === 'disabled' && h;
    });
    assert.match(hook.disabled.reason, /failed/);
    // Logged after the disable commits: the API can show it first.
    await eventually(async () => logs.some((l) => l.includes(s.hook.id) && /disabled/.test(l)));
  });
});
