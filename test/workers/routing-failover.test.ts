import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import smpp, { type PDU, type Server, type Session } from 'smpp';
import { assignNumber } from '../../src/domain/numbers/number-assignments.ts';
import { createRoute } from '../../src/domain/routes/routes.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenLoopback, readBody, twilioBasic } from '../support/fake-twilio.ts';
import { listenToEvents } from '../support/listen.ts';

const N = 300;
/** Submissions carrier A takes before it is stopped. */
const STOP_AFTER = 60;
/**
 * Carrier A stays down at least this long, and until carrier B has taken a message (a fixed outage
 * was shorter than the dispatcher's next attempts on a busy machine: A was back before anything
 * failed over). A message whose fate there is unknown (its connection dropped as A closed) cannot
 * be looked up meanwhile: it waits, owing the lookup, and is asked for again once A is back
 * (found: recorded; not found: sent there).
 */
const OUTAGE_MS = 3000;
const SID = `AC${randomBytes(16).toString('hex')}`;
const TOKEN = 'routing-token';

/**
 * Carrier A: Twilio's Messages resource. Every POST is recorded as it arrives and answered after a
 * short delay, on a connection closed after each answer; GET lists what it recorded by To and
 * From. stop() closes the listener the way a carrier going down does: what it is handling is still
 * answered, new connections are refused (listen() brings it back with what it recorded).
 */
function twilioCarrier() {
  const received: string[] = [];
  const created: { sid: string; to: string; from: string; body: string; date_created: string }[] = [];
  let seq = 0;
  let onSubmission: (n: number) => void = () => {};
  const server = http.createServer((req, res) => {
    const reply = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify(json));
    };
    if (req.headers.authorization !== twilioBasic(SID, TOKEN)) return reply(401, { code: 20003 });
    const url = new URL(req.url ?? '/', 'http://carrier');
    if (!url.pathname.endsWith('/Messages.json')) return reply(404, { code: 20404 });
    if (req.method === 'GET') {
      const [to, from] = [url.searchParams.get('To'), url.searchParams.get('From')];
      const messages = created
        .filter((m) => m.to === to && m.from === from)
        .map((m) => ({ ...m, status: 'sent' }));
      return reply(200, { messages, next_page_uri: null });
    }
    readBody(req, (raw) => {
      const form = new URLSearchParams(raw);
      const to = form.get('To') ?? '';
      received.push(to);
      const sid = `SM${(++seq).toString(16).padStart(32, '0')}`;
      created.push({
        sid,
        to,
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        date_created: new Date().toUTCString(),
      });
      onSubmission(received.length);
      setTimeout(() => reply(201, { sid, to, status: 'queued' }), 2 + Math.random() * 20);
    });
  });
  return {
    received,
    set onSubmission(fn: (n: number) => void) {
      onSubmission = fn;
    },
    listen: (port?: number) =>
      port === undefined
        ? listenLoopback(server)
        : new Promise<string>((r) => server.listen(port, '127.0.0.1', () => r(`http://127.0.0.1:${port}`))),
    stop: () => new Promise<void>((r) => server.close(() => r())),
    listening: () => server.listening,
  };
}

/** Carrier B: an SMSC (the `smpp` package's server) that accepts every submit_sm and records its destination. */
function smsc() {
  const received: string[] = [];
  let seq = 0;
  const sessions: Session[] = [];
  const server: Server = smpp.createServer((session: Session) => {
    sessions.push(session);
    session.on('error', () => {});
    session.on('bind_transceiver', (pdu: PDU) => session.send(pdu.response()));
    session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('submit_sm', (pdu: PDU) => {
      received.push(`+${pdu.destination_addr}`);
      session.send(pdu.response({ message_id: `B${++seq}` }));
    });
  });
  return {
    received,
    listen: async () => {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      return `smpp://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: async () => {
      if (!server.listening) return;
      for (const s of sessions) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('failover between two carriers: the first is stopped in the middle of a send', () => {
  const a = twilioCarrier();
  const b = smsc();
  let svc: TestService;
  let acc: TestAccount;
  let twilioUrl: string;
  /** Carrier A's successor on the same address (the third test). */
  const c = twilioCarrier();

  before(async () => {
    twilioUrl = await a.listen();
    const smppUrl = await b.listen();
    svc = await startTestService({
      twilio: { baseUrl: twilioUrl, accountSid: SID, authToken: TOKEN },
      smpp: { url: smppUrl, systemId: 'sparrow', password: 'secret1', windowSize: 10, maxPerSecond: 0 },
    });
    acc = await svc.newAccount({ balance: 1000 });
    // The test counts acc's message-sent events (one per message), written only where heard.
    await listenToEvents(svc.db, acc.accountId, ['message-sent']);
    svc.startWorkers([dispatch]);
  });
  after(async () => {
    await svc.close();
    if (a.listening()) await a.stop();
    if (c.listening()) await c.stop();
    await b.close();
  });

  /** The operator assigns the account's (simulator) number on these carriers: else none sends it (issue 28). */
  async function assignOwn(who: TestAccount, providers: string[]) {
    const number = body(
      await call(svc.api, 'GET', `/v1/accounts/${who.accountId}/phonenumbers`, { auth: who.auth }),
    ).data[0].number;
    for (const provider of providers)
      await assignNumber(svc.db, { accountId: who.accountId, number, provider }, { id: 'test' });
  }

  it('sends every message exactly once across both carriers and records which one took it', async () => {
    const number = body(
      await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, { auth: acc.auth }),
    ).data[0];
    const put = await call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}/phonenumbers/${number.id}`, {
      auth: acc.auth,
      json: { throughput: 1000 },
    });
    assert.equal(put.statusCode, 200, put.body);
    await assignOwn(acc, ['twilio', 'smpp']);
    const route = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/routes`, {
      auth: acc.auth,
      json: {
        prefix: '1',
        providers: [
          { provider: 'twilio', priority: 1 },
          { provider: 'smpp', priority: 2 },
        ],
      },
    });
    assert.equal(route.statusCode, 201, route.body);

    // Carrier A goes down once it has taken STOP_AFTER submissions, and is back after OUTAGE_MS
    // once B has taken something.
    let stopped: Promise<void> | undefined;
    a.onSubmission = (n) => {
      if (n !== STOP_AFTER) return;
      stopped = a.stop();
      const down = Date.now();
      const back = setInterval(() => {
        if (Date.now() - down < OUTAGE_MS || b.received.length === 0) return;
        clearInterval(back);
        void a.listen(Number(new URL(twilioUrl).port));
      }, 50);
      // A failover that never comes fails the wait below; this timer keeps nothing alive.
      back.unref();
    };
    const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_000_000 + i)}`);
    const send = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: { contacts: mobiles.map((m) => ({ mobile: { number: m } })), template: 'Failover' },
    });
    assert.equal(send.statusCode, 200, send.body);
    assert.equal(body(send).data.queued, N);

    await eventually(async () => {
      const { rows } = await svc.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND outgoing AND status IN ('queued', 'sending')`,
        [acc.accountId],
      );
      return rows[0].n === 0;
    }, 60_000);
    await stopped;

    // At the carriers: each recipient once, across both.
    const atCarriers = [...a.received, ...b.received].sort();
    assert.deepEqual(atCarriers, [...mobiles].sort());
    assert.ok(a.received.length >= STOP_AFTER, `A took ${a.received.length}`);
    assert.ok(b.received.length > 0, 'B took the rest');

    // In Sparrow: every message sent, recorded with the provider that took it.
    const { rows } = await svc.db.query<{ id: string; to_number: string; status: string; provider: string }>(
      'SELECT id, to_number, status, provider FROM messages WHERE account_id = $1 AND outgoing',
      [acc.accountId],
    );
    assert.equal(rows.length, N);
    const byA = new Set(a.received);
    for (const r of rows) {
      assert.equal(r.status, 'sent', `${r.to_number}: ${r.status}`);
      assert.equal(r.provider, byA.has(r.to_number) ? 'twilio' : 'smpp', r.to_number);
    }
    // The API shows it too.
    for (const r of [rows.find((x) => x.provider === 'twilio'), rows.find((x) => x.provider === 'smpp')]) {
      const got = await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages/${r?.id}`, {
        auth: acc.auth,
      });
      assert.equal(body(got).data.provider, r?.provider);
    }
    const sentEvents = await svc.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'message-sent'`,
      [acc.accountId],
    );
    assert.equal(sentEvents.rows[0].n, N);
  });

  it("applies the operator's default routes to an account without its own, and an account's own route first", async () => {
    await createRoute(svc.db, null, { prefix: '1202', providers: [{ provider: 'smpp' }] }, { id: 'test' });
    const plain = await svc.newAccount({ balance: 10 });
    await assignOwn(plain, ['smpp']);
    const own = await svc.newAccount({ balance: 10 });
    const ownRoute = await call(svc.api, 'POST', `/v1/accounts/${own.accountId}/routes`, {
      auth: own.auth,
      json: { country: 'US', providers: [{ provider: 'simulator' }] },
    });
    assert.equal(ownRoute.statusCode, 201, ownRoute.body);
    const sent = new Map<string, string>();
    for (const [who, base] of [
      [plain, 6_000_000],
      [own, 6_100_000],
    ] as const) {
      const to = [0, 1, 2].map((i) => `+1202${base + i}`);
      const res = await call(svc.api, 'POST', `/v1/accounts/${who.accountId}/messages`, {
        auth: who.auth,
        json: { contacts: to.map((m) => ({ mobile: { number: m } })), template: 'Default route' },
      });
      assert.equal(res.statusCode, 200, res.body);
      for (const m of to) sent.set(m, who.accountId);
    }
    const rows = await eventually(async () => {
      const { rows } = await svc.db.query<{ account_id: string; to_number: string; provider: string }>(
        `SELECT account_id, to_number, provider FROM messages
         WHERE account_id = ANY($1::uuid[]) AND outgoing AND status NOT IN ('queued', 'sending')`,
        [[plain.accountId, own.accountId]],
      );
      return rows.length === 6 && rows;
    });
    for (const r of rows) {
      assert.equal(r.provider, r.account_id === plain.accountId ? 'smpp' : 'simulator', r.to_number);
      assert.equal(b.received.includes(r.to_number), r.account_id === plain.accountId, r.to_number);
    }
  });

  it('passes over a provider whose link is down: the SMSC gone, messages go to the next provider on their first attempt', async () => {
    // A Twilio-compatible carrier again at the configured address; the SMSC goes away.
    if (a.listening()) await a.stop();
    await c.listen(Number(new URL(twilioUrl).port));
    await b.close();
    const smppProvider = svc.ctx.providers.get('smpp');
    await eventually(async () => smppProvider?.linkUp?.() === false);

    const who = await svc.newAccount({ balance: 10 });
    await assignOwn(who, ['smpp', 'twilio']);
    const route = await call(svc.api, 'POST', `/v1/accounts/${who.accountId}/routes`, {
      auth: who.auth,
      json: {
        prefix: '1',
        providers: [
          { provider: 'smpp', priority: 1 },
          { provider: 'twilio', priority: 2 },
        ],
      },
    });
    assert.equal(route.statusCode, 201, route.body);
    const to = [0, 1, 2, 3, 4].map((i) => `+1202${6_200_000 + i}`);
    const res = await call(svc.api, 'POST', `/v1/accounts/${who.accountId}/messages`, {
      auth: who.auth,
      json: { contacts: to.map((m) => ({ mobile: { number: m } })), template: 'Link down' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const rows = await eventually(async () => {
      const { rows } = await svc.db.query<{
        to_number: string;
        provider: string;
        attempts: number;
        status: string;
      }>(
        `SELECT to_number, provider, attempts, status FROM messages
         WHERE account_id = $1 AND outgoing AND status NOT IN ('queued', 'sending')`,
        [who.accountId],
      );
      return rows.length === to.length && rows;
    });
    for (const r of rows) {
      assert.deepEqual([r.status, r.provider, r.attempts], ['sent', 'twilio', 1], r.to_number);
    }
    assert.deepEqual([...c.received].sort(), [...to].sort());
  });
});
