import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { dispatch } from '../../src/workers/dispatch.ts';
import { call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, replyJson, twilioBasic } from '../support/fake-twilio.ts';

const SID = `AC${randomBytes(16).toString('hex')}`;
const TOKEN = 'unknown-fate-token';
// Long enough that an answer in 2 ms is heard on a loaded machine (a lookup waits as long).
const TIMEOUT_MS = 2000;

/** What the carrier does with the k-th (0-based) submission to one recipient. */
type Submission =
  | 'ok' // created and answered at once
  | 'late' // created, answered only after the provider stopped waiting
  | 'lost'; // never created, never answered (the request hangs)
/** What the carrier does with the k-th lookup (GET of the list) for one recipient. */
type Lookup = 'ok' | 'fail' | 'hang';

interface Script {
  submission?: (to: string, k: number) => Submission;
  lookup?: (to: string, k: number) => Lookup;
  /**
   * Lookups for a recipient are answered only once this many are waiting (or after a second, well
   * within the provider's timeout): identical messages are then settled at the same moment.
   */
  together?: number;
}

/**
 * A carrier speaking Twilio's Messages resource that deduplicates nothing: every POST creates a
 * message the moment it arrives (recorded), answered as the script says; GET lists the messages
 * by To and From, as Twilio's list does, or fails as the script says.
 */
function twilioCarrier(script: Script) {
  const created: { sid: string; to: string; from: string; body: string; at: Date }[] = [];
  const submissions = new Map<string, number>();
  const lookups = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  const next = (counts: Map<string, number>, to: string) => {
    const k = counts.get(to) ?? 0;
    counts.set(to, k + 1);
    return k;
  };
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== twilioBasic(SID, TOKEN)) return replyJson(res, 401, { code: 20003 });
    const url = new URL(req.url ?? '/', 'http://carrier');
    if (!url.pathname.endsWith('/Messages.json')) return replyJson(res, 404, { code: 20404 });
    if (req.method === 'GET') {
      const to = url.searchParams.get('To') ?? '';
      const from = url.searchParams.get('From');
      const kind = script.lookup?.(to, next(lookups, to)) ?? 'ok';
      if (kind === 'hang') return;
      if (kind === 'fail') return replyJson(res, 500, { code: 20500, message: 'Internal Server Error' });
      const answer = () => {
        const messages = created
          .filter((m) => m.to === to && m.from === from)
          .map((m) => ({ ...m, status: 'sent', date_created: m.at.toUTCString(), at: undefined }));
        if (!res.destroyed) replyJson(res, 200, { messages, next_page_uri: null });
      };
      if (!script.together) return answer();
      const queue = waiting.get(to) ?? [];
      waiting.set(to, queue);
      queue.push(answer);
      const release = () => {
        for (const a of queue.splice(0)) a();
      };
      if (queue.length >= script.together) release();
      else setTimeout(release, 1000);
      return;
    }
    readBody(req, (raw) => {
      const form = new URLSearchParams(raw);
      const to = form.get('To') ?? '';
      const kind = script.submission?.(to, next(submissions, to)) ?? 'ok';
      if (kind === 'lost') return;
      const m = {
        sid: `SM${randomBytes(16).toString('hex')}`,
        to,
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        at: new Date(),
      };
      created.push(m);
      setTimeout(
        () => {
          if (!res.destroyed) replyJson(res, 201, { sid: m.sid, to: m.to, status: 'queued' });
        },
        kind === 'late' ? TIMEOUT_MS * 3 : 2,
      );
    });
  });
  return { created, lookups, server };
}

/** A service whose messages to +1… go through a Twilio-compatible carrier following `script`. */
function withCarrier(script: Script) {
  const carrier = twilioCarrier(script);
  const t = { carrier } as { carrier: typeof carrier; svc: TestService; acc: TestAccount };
  before(async () => {
    const baseUrl = await listenLoopback(carrier.server);
    t.svc = await startTestService({
      twilio: { baseUrl, accountSid: SID, authToken: TOKEN, timeoutMs: TIMEOUT_MS },
    });
    t.acc = await t.svc.newAccount({ balance: 100 });
    const route = await call(t.svc.api, 'POST', `/v1/accounts/${t.acc.accountId}/routes`, {
      auth: t.acc.auth,
      json: { prefix: '1', providers: [{ provider: 'twilio', priority: 1 }] },
    });
    assert.equal(route.statusCode, 201, route.body);
  });
  after(async () => {
    await t.svc.close();
    await closeServer(carrier.server);
  });
  return t;
}

async function send(svc: TestService, acc: TestAccount, mobiles: string[], template: string) {
  const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
    auth: acc.auth,
    json: { contacts: mobiles.map((m) => ({ mobile: { number: m } })), template },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** The account's n outgoing messages once all are final, each with the carrier ids recorded for it. */
async function settled(svc: TestService, acc: TestAccount, n: number) {
  return eventually(async () => {
    const { rows } = await svc.db.query<{
      id: string;
      to_number: string;
      status: string;
      provider_message_id: string | null;
    }>(
      // The carrier's id, where the dispatcher keeps it for receipts that name only it.
      `SELECT m.id, m.to_number, m.status,
              (SELECT string_agg(r.ref, ',') FROM provider_refs r
               WHERE r.account_id = m.account_id AND r.message_id = m.id) AS provider_message_id
       FROM messages m WHERE m.account_id = $1 AND m.outgoing ORDER BY m.to_number, m.id`,
      [acc.accountId],
    );
    return rows.length === n && rows.every((r) => r.status !== 'queued' && r.status !== 'sending') && rows;
  }, 90_000);
}

describe('an attempt of unknown fate at a Twilio-compatible carrier is looked up before any retry', () => {
  const N = 24;
  /** The first submission to each of the first SLOW recipients is answered too late to be heard. */
  const SLOW = 6;
  const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_100_000 + i)}`);
  const slow = new Set(mobiles.slice(0, SLOW));
  const t = withCarrier({ submission: (to, k) => (slow.has(to) && k === 0 ? 'late' : 'ok') });

  it('texts every recipient once: the messages whose answer never came are found at the carrier, not resent', async () => {
    t.svc.startWorkers([dispatch]);
    await send(t.svc, t.acc, mobiles, 'Your code is 4411');
    const rows = await settled(t.svc, t.acc, N);

    // At the carrier: each recipient exactly once, though SLOW answers were never heard.
    assert.deepEqual(t.carrier.created.map((c) => c.to).sort(), [...mobiles].sort());
    // Each message carries the id the carrier gave its one submission, the late ones included.
    const sidOf = new Map(t.carrier.created.map((c) => [c.to, c.sid]));
    for (const r of rows) {
      assert.equal(r.status, 'sent', r.to_number);
      assert.equal(r.provider_message_id, sidOf.get(r.to_number), r.to_number);
    }
  });
});

describe('a lookup of unknown fate that fails is made again, with backoff, before anything is resent', () => {
  const N = 8;
  const SLOW = 4;
  const mobiles = Array.from({ length: N }, (_, i) => `+1202${String(5_200_000 + i)}`);
  const slow = new Set(mobiles.slice(0, SLOW));
  // A slow recipient's first submission is never answered in time, and so are its first two
  // lookups: the first answers 500, the second hangs past the provider's timeout.
  const t = withCarrier({
    submission: (to, k) => (slow.has(to) && k === 0 ? 'late' : 'ok'),
    lookup: (_to, k) => (k === 0 ? 'fail' : k === 1 ? 'hang' : 'ok'),
  });

  it('submits every message exactly once though the carrier could not be asked at first', async () => {
    t.svc.startWorkers([dispatch]);
    await send(t.svc, t.acc, mobiles, 'Your code is 5522');
    const rows = await settled(t.svc, t.acc, N);

    assert.deepEqual(t.carrier.created.map((c) => c.to).sort(), [...mobiles].sort());
    const sidOf = new Map(t.carrier.created.map((c) => [c.to, c.sid]));
    for (const r of rows) {
      assert.equal(r.status, 'sent', r.to_number);
      assert.equal(r.provider_message_id, sidOf.get(r.to_number), r.to_number);
    }
    // The case happened: every slow recipient's lookups failed twice before one was answered.
    for (const to of slow) assert.ok((t.carrier.lookups.get(to) ?? 0) >= 3, to);
  });
});

describe('two identical messages of unknown fate never take the same carrier message', () => {
  const mobile = '+12025300000';
  // Both submissions go unanswered; the carrier holds only the first (the second never arrived).
  // Their lookups are answered together, so both find the one message at the same moment.
  const t = withCarrier({
    submission: (_to, k) => (k === 0 ? 'late' : k === 1 ? 'lost' : 'ok'),
    together: 2,
  });

  it('gives the carrier message to one of them and resends the other', async () => {
    // Both queued before the dispatcher runs: they are handed over together.
    await send(t.svc, t.acc, [mobile], 'Same words');
    await send(t.svc, t.acc, [mobile], 'Same words');
    t.svc.startWorkers([dispatch]);
    const rows = await settled(t.svc, t.acc, 2);

    const held = t.carrier.created.filter((c) => c.to === mobile);
    assert.equal(held.length, 2, 'the carrier ends with two texts: the one it held and one resend');
    for (const r of rows) assert.equal(r.status, 'sent', r.id);
    const first = held[0].sid;
    assert.equal(rows.filter((r) => r.provider_message_id === first).length, 1, 'one message took it');
    assert.deepEqual(
      rows.map((r) => r.provider_message_id).sort(),
      held.map((c) => c.sid).sort(),
      'each message has its own carrier id',
    );
  });
});
