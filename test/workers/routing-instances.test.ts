import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { assignNumber } from '../../src/domain/numbers/number-assignments.ts';
import { twilioSignature } from '../../src/providers/twilio/webhooks.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, replyJson, twilioBasic } from '../support/fake-twilio.ts';
import { RecordingSmsc } from '../support/recording-smsc.ts';

/**
 * A Twilio-compatible account: sends only from the numbers it holds (else error 21606, as Twilio
 * does), lists them in IncomingPhoneNumbers, and answers 503 to destinations starting with
 * `busyPrefix`. Its message sids are SM1, SM2…: two accounts hand out the same ones.
 */
function twilioAccount(sid: string, token: string) {
  const holds = new Set<string>();
  const submitted: { to: string; from: string; callback: string; sid?: string }[] = [];
  let seq = 0;
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== twilioBasic(sid, token)) return replyJson(res, 401, { code: 20003 });
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && url.pathname.endsWith('/IncomingPhoneNumbers.json')) {
      const number = url.searchParams.get('PhoneNumber') ?? '';
      const listed = holds.has(number) ? [{ phone_number: number, capabilities: { sms: true } }] : [];
      return replyJson(res, 200, { incoming_phone_numbers: listed });
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/Messages.json')) return replyJson(res, 404, {});
    readBody(req, (raw) => {
      const p = new URLSearchParams(raw);
      const s = { to: p.get('To') ?? '', from: p.get('From') ?? '', callback: p.get('StatusCallback') ?? '' };
      submitted.push(s);
      if (s.to.startsWith('+1303')) return replyJson(res, 503, { code: 20500, message: 'Busy' });
      if (!holds.has(s.from)) {
        return replyJson(res, 400, {
          code: 21606,
          message: 'The From phone number is not a valid, SMS-capable number',
        });
      }
      const answer = { ...s, sid: `SM${++seq}` };
      submitted[submitted.length - 1] = answer;
      replyJson(res, 201, { sid: answer.sid, status: 'queued' });
    });
  });
  return { holds, submitted, server, listen: () => listenLoopback(server) };
}

describe('routes across provider instances of the same kind', () => {
  const t1 = twilioAccount('AC1', 'token-one');
  const t2 = twilioAccount('AC2', 'token-two');
  const smsc = new RecordingSmsc('sparrow-s', 'secret-s');
  let svc: TestService;

  before(async () => {
    const [url1, url2, smscUrl] = await Promise.all([t1.listen(), t2.listen(), smsc.listen()]);
    svc = await startTestService(
      { twilio: { baseUrl: url1, accountSid: 'AC1', authToken: 'token-one', timeoutMs: 5000 } },
      {
        env: {
          PROVIDERS: JSON.stringify([
            { name: 'tw2', kind: 'twilio', baseUrl: url2, accountSid: 'AC2', authToken: 'token-two' },
            { name: 'carrier-s', kind: 'smpp', url: smscUrl, systemId: 'sparrow-s', password: 'secret-s' },
            // A carrier that never answers: its link is never up.
            { name: 'dead-s', kind: 'smpp', url: 'smpp://127.0.0.1:9', systemId: 'x' },
          ]),
        },
      },
    );
    svc.startWorkers([dispatch]);
    await eventually(async () => svc.ctx.providers.get('carrier-s')?.linkUp?.());
  });
  after(async () => {
    await svc.close();
    await closeServer(t1.server);
    await closeServer(t2.server);
    await smsc.close();
  });

  /** A new account whose one number is bound to `provider` (verified by that account when Twilio), at 100/s. */
  async function accountOn(provider: string, holder?: ReturnType<typeof twilioAccount>) {
    const acc = await svc.newAccount({ balance: 100 });
    const number = body(
      await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, { auth: acc.auth }),
    ).data[0];
    holder?.holds.add(number.number);
    // An SMPP carrier's number is the operator's to assign (issue 28).
    if (provider !== 'simulator' && !holder) await assign(acc, number.number, [provider]);
    const put = await call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}/phonenumbers/${number.id}`, {
      auth: acc.auth,
      json: { throughput: 100, ...(provider === 'simulator' ? {} : { provider }) },
    });
    assert.equal(put.statusCode, 200, put.body);
    return {
      acc,
      number: body(put).data as { id: string; number: string; provider: string; verified: boolean },
    };
  }
  async function assign(acc: TestAccount, number: string, providers: string[]) {
    for (const provider of providers)
      await assignNumber(svc.db, { accountId: acc.accountId, number, provider }, { id: 'test' });
  }
  async function route(acc: TestAccount, prefix: string, providers: string[]) {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/routes`, {
      auth: acc.auth,
      json: { prefix, providers: providers.map((provider, i) => ({ provider, priority: i + 1 })) },
    });
    assert.equal(res.statusCode, 201, res.body);
  }
  async function send(acc: TestAccount, to: string[]) {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: { contacts: to.map((number) => ({ mobile: { number } })), template: 'Instances' },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  type Row = { id: string; to_number: string; status: string; provider: string; attempts: number };
  const settled = (acc: TestAccount, n: number) =>
    eventually(async () => {
      const { rows } = await svc.db.query<Row>(
        `SELECT id, to_number, status, provider, attempts FROM messages
         WHERE account_id = $1 AND outgoing AND status NOT IN ('queued', 'sending')`,
        [acc.accountId],
      );
      return rows.length === n && rows;
    });

  it('verifies a number with the account of the instance it is bound to, and refuses an unknown instance', async () => {
    const { acc, number } = await accountOn('tw2', t2);
    assert.deepEqual([number.provider, number.verified], ['tw2', true]);
    const path = `/v1/accounts/${acc.accountId}/phonenumbers/${number.id}`;
    // AC1 does not hold it.
    const toT1 = await call(svc.api, 'PUT', path, { auth: acc.auth, json: { provider: 'twilio' } });
    assert.deepEqual([body(toT1).data.provider, body(toT1).data.verified], ['twilio', false]);
    const unknown = await call(svc.api, 'PUT', path, { auth: acc.auth, json: { provider: 'carrier-x' } });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.match(body(unknown).error.message, /carrier-x.*not a provider of this service/);
  });

  it('never hands a number of one Twilio account to another: the route passes over it', async () => {
    const { acc, number } = await accountOn('twilio', t1);
    assert.equal(number.verified, true);
    await route(acc, '1', ['tw2', 'twilio']);
    const to = [0, 1, 2].map((i) => `+1202555${String(7100 + i)}`);
    await send(acc, to);
    for (const r of await settled(acc, to.length)) {
      assert.deepEqual([r.status, r.provider, r.attempts], ['sent', 'twilio', 1], r.to_number);
    }
    assert.deepEqual(
      t2.submitted.filter((s) => to.includes(s.to)),
      [],
    );
    assert.deepEqual(
      t1.submitted.filter((s) => to.includes(s.to)).map((s) => s.from),
      to.map(() => number.number),
    );
  });

  it('moves a message whose sender a Twilio account refuses (21606) to the next provider, keeping the sender', async () => {
    const { acc, number } = await accountOn('simulator');
    // The operator assigned the number on both (issue 28): else neither would be handed it.
    await assign(acc, number.number, ['tw2', 'carrier-s']);
    await route(acc, '1', ['tw2', 'carrier-s']);
    const to = [0, 1, 2].map((i) => `+1202555${String(7200 + i)}`);
    await send(acc, to);
    for (const r of await settled(acc, to.length)) {
      // The SMSC's receipt may have arrived already.
      const sent = r.status === 'delivered' ? 'sent' : r.status;
      assert.deepEqual([sent, r.provider, r.attempts], ['sent', 'carrier-s', 2], r.to_number);
    }
    assert.deepEqual(
      t2.submitted.filter((s) => to.includes(s.to)).map((s) => s.from),
      to.map(() => number.number),
    );
    assert.deepEqual(
      smsc.received.filter((r) => to.includes(r.to)).map((r) => r.from),
      to.map(() => number.number),
    );
  });

  it('does not retry a refusal at once when the providers after it are down: it waits its backoff', async () => {
    const { acc, number } = await accountOn('simulator');
    await assign(acc, number.number, ['tw2', 'dead-s']);
    await route(acc, '1303', ['tw2', 'dead-s']);
    await send(acc, ['+13035550100']);
    const row = await eventually(async () => {
      const { rows } = await svc.db.query<{ status: string; error: { code: string } | null; wait: number }>(
        `SELECT status, error, extract(epoch FROM not_before - updated_at)::float8 AS wait FROM messages
         WHERE account_id = $1 AND outgoing`,
        [acc.accountId],
      );
      return rows[0]?.status === 'queued' && rows[0].error !== null && rows[0];
    });
    assert.equal(row.error?.code, '20500');
    // The 2 s backoff of a first retry (before: 0 s, and the next attempt went to the same provider at once).
    assert.ok(row.wait >= 1.5, `waits ${row.wait} s`);
  });

  it("applies a Twilio instance's status callbacks, checked with its own token, to the messages it took", async () => {
    const a1 = await accountOn('twilio', t1);
    const a2 = await accountOn('tw2', t2);
    await send(a1.acc, ['+12025557301']);
    await send(a2.acc, ['+12025557302']);
    const [m1] = await settled(a1.acc, 1);
    const [m2] = await settled(a2.acc, 1);
    assert.deepEqual([m1.provider, m2.provider], ['twilio', 'tw2']);
    const s1 = t1.submitted.find((s) => s.to === '+12025557301');
    const s2 = t2.submitted.find((s) => s.to === '+12025557302');
    assert.equal(s1?.callback, `${svc.config.externalsUrl}/v1/providers/twilio/status`);
    assert.equal(s2?.callback, `${svc.config.externalsUrl}/v1/providers/twilio/status?provider=tw2`);

    const post = (url: string, token: string, params: Record<string, string>) =>
      call(svc.externals, 'POST', url.slice(svc.config.externalsUrl.length), {
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilioSignature(token, url, params),
        },
        payload: new URLSearchParams(params).toString(),
      });
    const delivered = { MessageSid: s2?.sid ?? '', MessageStatus: 'delivered' };
    // Signed with the other account's token, or for an instance that is not a Twilio one: refused.
    assert.equal((await post(s2?.callback ?? '', 'token-one', delivered)).statusCode, 403);
    const notTwilio = `${svc.config.externalsUrl}/v1/providers/twilio/status?provider=carrier-s`;
    assert.equal((await post(notTwilio, 'token-two', delivered)).statusCode, 403);
    const malformed = `${svc.config.externalsUrl}/v1/providers/twilio/status?provider=Tw2!`;
    assert.equal((await post(malformed, 'token-two', delivered)).statusCode, 400);
    const ok = await post(s2?.callback ?? '', 'token-two', delivered);
    assert.equal(ok.statusCode, 204, ok.body);

    const status = async (acc: TestAccount, id: string) =>
      body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages/${id}`, { auth: acc.auth }))
        .data;
    await eventually(async () => (await status(a2.acc, m2.id)).status === 'delivered');
    // The other account's message with the same sid is untouched.
    const other = t1.submitted.find((s) => s.sid === s2?.sid);
    if (other) {
      const { rows } = await svc.db.query<{ status: string }>(
        'SELECT status FROM messages WHERE provider = $1 AND provider_ref = $2',
        ['twilio', other.sid],
      );
      assert.deepEqual(
        rows.map((r) => r.status),
        ['sent'],
      );
    }
    assert.equal((await status(a1.acc, m1.id)).status, 'sent');

    // Inbound: a tw2 text for a tw2 number is taken; for the twilio number, refused.
    const inbound = (to: string) => {
      const url = `${svc.config.externalsUrl}/v1/providers/twilio/inbound?provider=tw2`;
      return post(url, 'token-two', {
        MessageSid: `SMIN${to.slice(-4)}`,
        From: '+12025557399',
        To: to,
        Body: 'hi',
      });
    };
    assert.equal((await inbound(a2.number.number)).statusCode, 200);
    const refused = await inbound(a1.number.number);
    assert.equal(refused.statusCode, 404, refused.body);
  });

  it('takes the calls of a Twilio instance of PROVIDERS with its token, for its numbers, through the call', async () => {
    const onTw2 = await accountOn('tw2', t2);
    const onTwilio = await accountOn('twilio', t1);
    const base = svc.config.externalsUrl;
    const signed = (path: string, token: string, params: Record<string, string>) =>
      call(svc.externals, 'POST', path, {
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilioSignature(token, `${base}${path}`, params),
        },
        payload: new URLSearchParams(params).toString(),
      });
    const callOf = async (sid: string) =>
      (
        await svc.db.query<{
          account_id: string;
          provider: string;
          status: string;
          recording_url: string | null;
        }>('SELECT account_id, provider, status, recording_url FROM calls WHERE provider_call_id = $1', [sid])
      ).rows;
    const ring = {
      CallSid: 'CA-tw2-1',
      From: '+12025557411',
      To: onTw2.number.number,
      CallStatus: 'ringing',
    };

    // Its number, its token: taken as a call of tw2; the voicemail's action URL names tw2 again.
    const res = await signed('/v1/providers/twilio/voice?provider=tw2', 'token-two', ring);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(
      res.body.includes(`action="${base}/v1/providers/twilio/voice/recording?provider=tw2"`),
      res.body,
    );
    assert.deepEqual(await callOf('CA-tw2-1'), [
      { account_id: onTw2.acc.accountId, provider: 'tw2', status: 'initiated', recording_url: null },
    ]);
    // Signed with the built-in account's token, or through the built-in door: refused, nothing stored.
    const other = { ...ring, CallSid: 'CA-tw2-2' };
    assert.equal(
      (await signed('/v1/providers/twilio/voice?provider=tw2', 'token-one', other)).statusCode,
      403,
    );
    assert.equal((await signed('/v1/providers/twilio/voice', 'token-one', other)).statusCode, 404);
    // tw2 cannot take a call for a number the built-in instance serves.
    const foreign = { ...ring, CallSid: 'CA-tw2-3', To: onTwilio.number.number };
    assert.equal(
      (await signed('/v1/providers/twilio/voice?provider=tw2', 'token-two', foreign)).statusCode,
      404,
    );
    assert.deepEqual(await callOf('CA-tw2-2'), []);
    assert.deepEqual(await callOf('CA-tw2-3'), []);

    // Its status and recording callbacks move the call; the built-in instance's do not reach it.
    const done = { ...ring, CallStatus: 'completed', CallDuration: '12' };
    assert.equal((await signed('/v1/providers/twilio/voice/status', 'token-one', done)).statusCode, 404);
    assert.equal((await callOf('CA-tw2-1'))[0].status, 'initiated');
    assert.equal(
      (await signed('/v1/providers/twilio/voice/status?provider=tw2', 'token-two', done)).statusCode,
      204,
    );
    assert.equal((await callOf('CA-tw2-1'))[0].status, 'completed');
    const recording = { ...ring, RecordingUrl: 'https://api.twilio.test/rec/RE1', RecordingDuration: '9' };
    const rec = await signed('/v1/providers/twilio/voice/recording?provider=tw2', 'token-two', recording);
    assert.equal(rec.statusCode, 200, rec.body);
    assert.equal((await callOf('CA-tw2-1'))[0].recording_url, 'https://api.twilio.test/rec/RE1');
  });

  it('an SMPP carrier is refused for good an inbound text it cannot place, and not for one it can', async () => {
    const onSmpp = await accountOn('carrier-s');
    const onTwilio = await accountOn('twilio', t1);
    const received = async (acc: TestAccount) =>
      (
        await svc.db.query<{ from_number: string; body: string }>(
          'SELECT from_number, body FROM messages WHERE account_id = $1 AND NOT outgoing',
          [acc.accountId],
        )
      ).rows;
    // Its own number: taken (ESME_ROK) and stored.
    assert.equal(await smsc.inbound('+12025557301', onSmpp.number.number, 'hello'), 0);
    assert.deepEqual(await received(onSmpp.acc), [{ from_number: '+12025557301', body: 'hello' }]);
    // Another provider's number, a number of no account: ESME_RINVDSTADR (0x0B), not a temporary
    // error the SMSC would deliver again forever; nothing stored.
    assert.equal(await smsc.inbound('+12025557302', onTwilio.number.number, 'hello'), 0x0b);
    assert.equal(await smsc.inbound('+12025557303', '+12025550000', 'hello'), 0x0b);
    // A sender that is not a phone number: ESME_RINVSRCADR (0x0A).
    assert.equal(await smsc.inbound('12', onSmpp.number.number, 'hello'), 0x0a);
    assert.deepEqual(await received(onTwilio.acc), []);
    assert.equal((await received(onSmpp.acc)).length, 1);
  });
});
