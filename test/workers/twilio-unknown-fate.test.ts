import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { dispatch } from '../../src/workers/dispatch.ts';
import { call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, replyJson, twilioBasic } from '../support/fake-twilio.ts';

const SID = `AC${randomBytes(16).toString('hex')}`;
const TOKEN = 'unknown-fate-token';
const N = 24;
/** The carrier's first SLOW submissions are answered only after the provider stopped waiting. */
const SLOW = 6;
// Long enough that an answer in 2 ms is heard on a loaded machine (a lookup waits as long).
const TIMEOUT_MS = 2000;

/**
 * A carrier speaking Twilio's Messages resource that deduplicates nothing: every POST creates a
 * message the moment it arrives (recorded), the first SLOW answered too late to be heard; GET lists
 * the messages by To and From, as Twilio's list does.
 */
function twilioCarrier() {
  const created: { sid: string; to: string; from: string; body: string; at: Date }[] = [];
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== twilioBasic(SID, TOKEN)) return replyJson(res, 401, { code: 20003 });
    const url = new URL(req.url ?? '/', 'http://carrier');
    if (!url.pathname.endsWith('/Messages.json')) return replyJson(res, 404, { code: 20404 });
    if (req.method === 'GET') {
      const to = url.searchParams.get('To');
      const from = url.searchParams.get('From');
      const messages = created
        .filter((m) => m.to === to && m.from === from)
        .map((m) => ({ ...m, status: 'sent', date_created: m.at.toUTCString(), at: undefined }));
      return replyJson(res, 200, { messages, next_page_uri: null });
    }
    readBody(req, (raw) => {
      const form = new URLSearchParams(raw);
      const m = {
        sid: `SM${randomBytes(16).toString('hex')}`,
        to: form.get('To') ?? '',
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        at: new Date(),
      };
      created.push(m);
      const late = created.length <= SLOW;
      setTimeout(
        () => {
          if (!res.destroyed) replyJson(res, 201, { sid: m.sid, to: m.to, status: 'queued' });
        },
        late ? TIMEOUT_MS * 3 : 2,
      );
    });
  });
  return { created, server };
}

describe('an attempt of unknown fate at a Twilio-compatible carrier is looked up before any retry', () => {
  const carrier = twilioCarrier();
  let svc: TestService;
  let acc: TestAccount;

  before(async () => {
    const baseUrl = await listenLoopback(carrier.server);
    svc = await startTestService({
      twilio: { baseUrl, accountSid: SID, authToken: TOKEN, timeoutMs: TIMEOUT_MS },
    });
    acc = await svc.newAccount({ balance: 100 });
    svc.startWorkers([dispatch]);
  });
  after(async () => {
    await svc.close();
    await closeServer(carrier.server);
  });

  it('texts every recipient once: the messages whose answer never came are found at the carrier, not resent', async () => {
    const route = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/routes`, {
      auth: acc.auth,
      json: { prefix: '1', providers: [{ provider: 'twilio', priority: 1 }] },
    });
    assert.equal(route.statusCode, 201, route.body);
    const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_100_000 + i)}`);
    const send = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: { contacts: mobiles.map((m) => ({ mobile: { number: m } })), template: 'Your code is 4411' },
    });
    assert.equal(send.statusCode, 200, send.body);

    const rows = await eventually(async () => {
      const { rows } = await svc.db.query<{
        to_number: string;
        status: string;
        provider_message_id: string | null;
      }>(
        // The carrier's id, where the dispatcher keeps it for receipts that name only it.
        `SELECT m.to_number, m.status,
                (SELECT string_agg(r.ref, ',') FROM provider_refs r
                 WHERE r.account_id = m.account_id AND r.message_id = m.id) AS provider_message_id
         FROM messages m WHERE m.account_id = $1 AND m.outgoing ORDER BY m.to_number`,
        [acc.accountId],
      );
      return rows.length === N && rows.every((r) => r.status !== 'queued' && r.status !== 'sending') && rows;
    }, 60_000);

    // At the carrier: each recipient exactly once, though SLOW answers were never heard.
    assert.deepEqual(carrier.created.map((c) => c.to).sort(), [...mobiles].sort());
    // Each message carries the id the carrier gave its one submission, the late ones included.
    const sidOf = new Map(carrier.created.map((c) => [c.to, c.sid]));
    for (const r of rows) {
      assert.equal(r.status, 'sent', r.to_number);
      assert.equal(r.provider_message_id, sidOf.get(r.to_number), r.to_number);
    }
  });
});
