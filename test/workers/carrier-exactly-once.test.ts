import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, twilioBasic } from '../support/fake-twilio.ts';
import { listenToEvents } from '../support/listen.ts';
import { countMessages, workerProcesses } from '../support/worker-processes.ts';

const N = 3000;
const SID = `AC${randomBytes(16).toString('hex')}`;

/** One submission as the carrier recorded it. */
interface Submission {
  sid: string;
  to: string;
  from: string;
  body: string;
  dateCreated: Date;
  /** The auth token it came with: which worker process made it. */
  token: string;
  /** The connection closed before the answer could be written: the sender never learned the sid. */
  unanswered: boolean;
}

/**
 * A carrier speaking Twilio's Messages resource over HTTP, as Twilio does: every POST creates a
 * message (recorded the moment it arrives, answered after a small random delay, so many are in
 * flight) and nothing is deduplicated. GET lists messages filtered by To, From and DateSent>=,
 * one a page (so that a lookup must follow next_page_uri), oldest first. Each worker process authenticates with a
 * token of its own (Twilio accounts have a primary and a secondary token), so submissions can be
 * told apart by process.
 */
function twilioCarrier(tokens: string[]) {
  const submissions: Submission[] = [];
  /** What the Messages list shows: the submissions and older messages of the account (seed). */
  const listed: Submission[] = [];
  /** Submissions received and not yet answered, by token. */
  const pending = new Map<string, number>();
  /** Called as each submission is recorded, before it is answered. */
  let onSubmission: (s: Submission, pendingOfToken: number) => void = () => {};
  /** Tokens whose process was killed: what it still waits for is never answered. */
  const silenced = new Set<string>();
  let lists = 0;
  let seq = 0;
  const resource = (s: Submission) => ({
    sid: s.sid,
    account_sid: SID,
    to: s.to,
    from: s.from,
    body: s.body,
    status: 'sent',
    date_created: s.dateCreated.toUTCString(),
    date_sent: s.dateCreated.toUTCString(),
    error_code: null,
    error_message: null,
  });
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://carrier');
    const token = tokens.find((t) => req.headers.authorization === twilioBasic(SID, t));
    const reply = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    // The account holds every number it is asked about (a number is verified before it may send).
    if (req.method === 'GET' && url.pathname === `/2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json`) {
      if (!token) return reply(401, { code: 20003, message: 'Authenticate' });
      const number = url.searchParams.get('PhoneNumber') ?? '';
      return reply(200, {
        incoming_phone_numbers: [{ sid: 'PN1', phone_number: number, capabilities: { sms: true } }],
        page: 0,
        page_size: 50,
      });
    }
    if (url.pathname !== `/2010-04-01/Accounts/${SID}/Messages.json`) return reply(404, { code: 20404 });
    if (!token) return reply(401, { code: 20003, message: 'Authenticate' });
    if (req.method === 'GET') {
      lists++;
      const q = url.searchParams;
      const since = q.get('DateSent>') ? Date.parse(`${q.get('DateSent>')}T00:00:00Z`) : 0;
      const matching = listed.filter(
        (s) =>
          (!q.get('To') || s.to === q.get('To')) &&
          (!q.get('From') || s.from === q.get('From')) &&
          s.dateCreated.getTime() >= since,
      );
      const size = Math.min(Number(q.get('PageSize') ?? 50), 1);
      const page = Number(q.get('Page') ?? 0);
      const next = new URLSearchParams(q);
      next.set('Page', String(page + 1));
      const more = (page + 1) * size < matching.length;
      return reply(200, {
        messages: matching.slice(page * size, (page + 1) * size).map(resource),
        next_page_uri: more ? `${url.pathname}?${next}` : null,
      });
    }
    readBody(req, (raw) => {
      const form = new URLSearchParams(raw);
      const s: Submission = {
        sid: `SM${(++seq).toString(16).padStart(32, '0')}`,
        to: form.get('To') ?? '',
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        dateCreated: new Date(),
        token,
        unanswered: false,
      };
      submissions.push(s);
      listed.push(s);
      pending.set(token, (pending.get(token) ?? 0) + 1);
      res.on('close', () => {
        pending.set(token, (pending.get(token) ?? 1) - 1);
        if (!res.writableFinished) s.unanswered = true;
      });
      onSubmission(s, pending.get(token) ?? 0);
      setTimeout(
        () => {
          if (!res.destroyed && !silenced.has(token)) reply(201, { ...resource(s), status: 'queued' });
        },
        5 + Math.random() * 60,
      );
    });
  });
  return {
    submissions,
    lists: () => lists,
    set onSubmission(fn: (s: Submission, pendingOfToken: number) => void) {
      onSubmission = fn;
    },
    silence: (token: string) => silenced.add(token),
    /** An older message of the account, listed but not a submission of this test. */
    seed: (to: string, from: string, text: string) =>
      listed.push({
        sid: `SM${(++seq).toString(16).padStart(32, '0')}`,
        to,
        from,
        body: text,
        dateCreated: new Date(),
        token: '',
        unanswered: false,
      }),
    listen: () => listenLoopback(server),
    close: () => closeServer(server),
  };
}

describe('exactly once at the carrier: a worker killed with SIGKILL in the middle of a Twilio send', () => {
  const tokens = ['token-a', 'token-b', 'token-c'];
  const carrier = twilioCarrier(tokens);
  let baseUrl: string;
  let svc: TestService;
  let a: TestAccount;
  const spawnWorker = workerProcesses();

  /** A `sparrow worker` process (src/main.ts worker) on the test's database, sending through the carrier. */
  const worker = (token: string): ChildProcess =>
    spawnWorker({
      DATABASE_URL: svc.config.databaseUrl!,
      TWILIO_BASE_URL: baseUrl,
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: token,
    });

  before(async () => {
    baseUrl = await carrier.listen();
    svc = await startTestService({ twilio: { baseUrl, accountSid: SID, authToken: tokens[0] } });
    a = await svc.newAccount({ balance: 1000 });
    // The test counts message-sent events (one per message), written only where heard.
    await listenToEvents(svc.db, a.accountId, ['message-sent']);
  });
  after(async () => {
    await svc.close();
    await carrier.close();
  });

  const count = (where: string) => countMessages(svc, a.accountId, where);

  it('submits every recipient exactly once: the in-flight submissions are found at the carrier, not resent', async (t) => {
    const rows = Array.from({ length: N }, (_, i) => `US,Person${i},+1202${String(4_000_000 + i)}`).join(
      '\n',
    );
    const upload = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      headers: { ...a.auth, 'content-type': 'text/csv' },
      payload: `country,firstName,mobile\n${rows}\n`,
    });
    assert.equal(body(upload).data.inserted, N);
    const number = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }),
    ).data[0];
    const put = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}/phonenumbers/${number.id}`, {
      auth: a.auth,
      json: { throughput: 1000, provider: 'twilio' },
    });
    assert.equal(put.statusCode, 200, put.body);

    const send = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { filters: { all: true }, template: 'Hello {{{firstName}}}' },
    });
    assert.equal(send.statusCode, 200);
    assert.equal(body(send).data.queued, N);
    const balanceAfterSend = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, { auth: a.auth }),
    ).data.balance;

    // Every recipient already had a text from this number today: a lookup pages past it.
    for (let i = 0; i < N; i++) carrier.seed(`+1202${String(4_000_000 + i)}`, number.number, 'An older text');
    const workers = new Map([
      [tokens[0], worker(tokens[0])],
      [tokens[1], worker(tokens[1])],
    ]);
    // The kill lands while a worker has submissions in flight: from inside the carrier, as one of
    // them arrives (after it has sent a hundred), before any answer to it.
    const seen = new Map<string, number>();
    let victim: ChildProcess | undefined;
    const killed = new Promise<void>((resolve) => {
      carrier.onSubmission = (s, pendingOfToken) => {
        const n = (seen.get(s.token) ?? 0) + 1;
        seen.set(s.token, n);
        const child = workers.get(s.token);
        if (victim || !child || n < 100 || pendingOfToken < 3) return;
        victim = child;
        carrier.silence(s.token);
        child.kill('SIGKILL');
        child.once('exit', () => resolve());
      };
    });
    const sentWithoutKill = eventually(async () => carrier.submissions.length >= N, 100_000, 50).then(() => {
      throw new Error('the send finished before the kill could land mid-flight');
    });
    await Promise.race([killed, sentWithoutKill]);
    sentWithoutKill.catch(() => {});
    carrier.onSubmission = () => {};
    assert.ok(carrier.submissions.length < N, 'the kill landed before the send finished');
    worker(tokens[2]);

    await eventually(
      async () =>
        (await count(`status IN ('queued', 'sending')`)) === 0 &&
        Number((await svc.db.query('SELECT count(*)::int AS n FROM dispatch_inflight')).rows[0].n) === 0,
      180_000,
      100,
    );

    const perRecipient = new Map<string, Submission[]>();
    for (const s of carrier.submissions) perRecipient.set(s.to, [...(perRecipient.get(s.to) ?? []), s]);
    const duplicates = carrier.submissions.length - perRecipient.size;
    const unanswered = carrier.submissions.filter((s) => s.unanswered).length;
    t.diagnostic(
      `carrier: ${carrier.submissions.length} submissions, ${duplicates} duplicates, ${N - perRecipient.size} lost; ` +
        `${unanswered} answered to a killed worker too late; ${carrier.lists()} list requests`,
    );
    assert.equal(duplicates, 0, `${duplicates} duplicate submissions at the carrier`);
    assert.equal(perRecipient.size, N, 'every recipient was submitted');
    assert.ok(unanswered > 0, 'the killed worker had submissions in flight whose answer it never read');
    assert.ok(carrier.lists() > 0, 'the uncertain submissions were looked up at the carrier');

    assert.equal(await count(`status = 'sent' AND outgoing`), N);
    const refs = await svc.db.query<{ to_number: string; provider_ref: string }>(
      'SELECT to_number, provider_ref FROM messages WHERE account_id = $1 AND outgoing',
      [a.accountId],
    );
    const mismatched = refs.rows.filter((r) => perRecipient.get(r.to_number)?.[0].sid !== r.provider_ref);
    assert.equal(mismatched.length, 0, 'each message records the carrier id of its one submission');
    const events = await svc.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT data->'message'->>'id')::int AS distinct_messages
         FROM events WHERE account_id = $1 AND type = 'message-sent'`,
      [a.accountId],
    );
    assert.deepEqual(events.rows[0], { n: N, distinct_messages: N }, 'one message-sent event per message');
    const balance = body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, { auth: a.auth }))
      .data.balance;
    assert.equal(balance, balanceAfterSend, 'no refund and no second charge');
  });
});
