import assert from 'node:assert/strict';
import { randomUUID as newId, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { TwilioProvider } from '../../src/providers/twilio/provider.ts';
import {
  parseTwilioInbound,
  parseTwilioStatus,
  twilioSignature,
  verifyTwilioSignature,
} from '../../src/providers/twilio/webhooks.ts';
import type { OutboundMessage, Provider } from '../../src/providers/types.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { addProviderNumber, body, call, eventually, startTestService, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, replyJson, twilioBasic } from '../support/fake-twilio.ts';

const SID = `AC${randomBytes(16).toString('hex')}`;
const TOKEN = randomBytes(16).toString('hex');

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: URLSearchParams;
}

/**
 * A local server speaking Twilio's Messages resource: Basic auth with the account SID and auth
 * token, form-encoded fields, 201 with a message resource, or Twilio's error body.
 */
function twilioLikeServer() {
  const requests: Recorded[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    readBody(req, (raw) => {
      const form = new URLSearchParams(raw);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        form,
      });
      const reply = (status: number, json: unknown) => replyJson(res, status, json);
      const error = (status: number, code: number, message: string) =>
        reply(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
      if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${SID}/Messages.json`) {
        return error(404, 20404, 'The requested resource was not found');
      }
      if (req.headers.authorization !== twilioBasic(SID, TOKEN)) return error(401, 20003, 'Authenticate');
      if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        return error(400, 20001, 'Unsupported content type');
      }
      const to = form.get('To');
      if (!to || !form.get('From') || !form.has('Body'))
        return error(400, 21604, "A 'To' phone number is required.");
      // Twilio takes whole seconds from 1 to 36,000 (error 21624 otherwise).
      const validity = form.get('ValidityPeriod');
      if (
        validity !== null &&
        !(/^\d+$/.test(validity) && Number(validity) >= 1 && Number(validity) <= 36_000)
      )
        return error(400, 21624, 'Invalid validity period value');
      switch (to) {
        case '+15005550001':
          return error(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
        case '+15005550002':
          return error(400, 21612, `The 'To' phone number: ${to}, is not currently reachable.`);
        case '+15005550009':
          return error(400, 21614, `'To' number is not a valid mobile number`);
        case '+15005550010':
          return error(400, 21610, 'Attempt to send to unsubscribed recipient');
        case '+15005550011':
          return error(429, 20429, 'Too Many Requests');
        case '+15005550012':
          return error(503, 20500, 'Service unavailable');
        case '+15005550013':
          return error(400, 30006, 'Landline or unreachable carrier');
        case '+15005550014':
          return error(400, 21999, 'Some error we do not name');
        case '+15005550015':
          hanging.push(res);
          return;
      }
      reply(201, {
        sid: `SM${randomBytes(16).toString('hex')}`,
        account_sid: SID,
        to,
        from: form.get('From'),
        body: form.get('Body'),
        status: 'queued',
        num_segments: '1',
        error_code: null,
        error_message: null,
        api_version: '2010-04-01',
      });
    });
  });
  return { server, requests, hanging };
}

function message(to: string, overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: newId(),
    accountId: newId(),
    attempt: 1,
    from: '+12125550100',
    to,
    body: 'Hello {there} ✓',
    encoding: 'UCS-2',
    segments: 1,
    media: [],
    ...overrides,
  };
}

describe('Twilio-compatible provider', () => {
  let svc: TestService;
  let peer: ReturnType<typeof twilioLikeServer>;
  let baseUrl: string;
  let twilio: Provider;

  before(async () => {
    peer = twilioLikeServer();
    baseUrl = await listenLoopback(peer.server);
    svc = await startTestService({
      twilio: { baseUrl, accountSid: SID, authToken: TOKEN },
      externalsUrl: 'https://hooks.example.test',
    });
    const p = svc.ctx.providers.get('twilio');
    assert.ok(p, 'the registry builds the Twilio provider when an account SID is configured');
    twilio = p;
  });
  after(async () => {
    for (const res of peer.hanging) res.destroy();
    await svc.close();
    await closeServer(peer.server);
  });

  it('posts To, From, Body, StatusCallback and MediaUrl form-encoded with Basic auth, and answers the sid', async () => {
    const before = peer.requests.length;
    const m = message('+14155550123', {
      media: [{ url: 'https://cdn.example/a.png' }, { url: 'https://cdn.example/b.jpg' }],
    });
    const res = await twilio.send(m);
    assert.equal(res.ok, true);
    assert.equal(peer.requests.length, before + 1);
    const req = peer.requests.at(-1)!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, `/2010-04-01/Accounts/${SID}/Messages.json`);
    assert.match(req.contentType ?? '', /^application\/x-www-form-urlencoded/);
    assert.equal(req.form.get('To'), '+14155550123');
    assert.equal(req.form.get('From'), '+12125550100');
    assert.equal(req.form.get('Body'), 'Hello {there} ✓');
    assert.equal(req.form.get('StatusCallback'), 'https://hooks.example.test/v1/providers/twilio/status');
    assert.deepEqual(req.form.getAll('MediaUrl'), ['https://cdn.example/a.png', 'https://cdn.example/b.jpg']);
    if (res.ok) {
      assert.match(res.providerMessageId, /^SM[0-9a-f]{32}$/);
      assert.equal(res.status, 'sent');
    }
  });

  it("posts what is left of the validity as ValidityPeriod, within Twilio's 1..36,000 seconds", async () => {
    const cases: [number | undefined, string | null][] = [
      [90, '90'],
      [1, '1'],
      [36_000, '36000'],
      [604_800, '36000'],
      [undefined, null],
    ];
    for (const [validityPeriod, expected] of cases) {
      const before = peer.requests.length;
      const res = await twilio.send(message('+14155550133', { validityPeriod }));
      assert.equal(res.ok, true, `${validityPeriod}: ${JSON.stringify(res)}`);
      assert.equal(peer.requests.length, before + 1);
      assert.equal(peer.requests.at(-1)?.form.get('ValidityPeriod'), expected, String(validityPeriod));
    }
  });

  it("carries a send's validityPeriod from the API through the dispatcher to the Twilio-compatible server", async () => {
    const acc = await svc.newAccount({ balance: 5 });
    const from = await addProviderNumber(svc.db, acc.accountId, 'twilio');
    const group = body(
      await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/groups`, {
        auth: acc.auth,
        json: { name: 'twilio', phoneNumbers: [from] },
      }),
    );
    const groupId = group.data?.id;
    assert.ok(groupId, JSON.stringify(group));
    const before = Date.now();
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json: {
        contacts: [{ mobile: { number: '+14155550177' } }],
        template: 'It\u2019s valid for five minutes',
        validityPeriod: 300,
        phoneNumberFilter: { group: { id: groupId } },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const req = await eventually(async () => {
      await dispatch.run(svc.ctx, new AbortController().signal);
      return peer.requests.find((r) => r.form.get('To') === '+14155550177');
    });
    const seconds = Number(req.form.get('ValidityPeriod'));
    const elapsed = Math.ceil((Date.now() - before) / 1000);
    assert.ok(seconds <= 300 && seconds >= 300 - elapsed - 1, `ValidityPeriod ${seconds}`);
    // Smart encoding reached the carrier too: the curly apostrophe went as a GSM-7 one.
    assert.equal(req.form.get('Body'), "It's valid for five minutes");
  });

  it('does not submit the same (message id, attempt) twice, but does submit a new attempt', async () => {
    const m = message('+14155550124');
    const before = peer.requests.length;
    const [a, b] = await Promise.all([twilio.send(m), twilio.send({ ...m })]);
    const c = await twilio.send({ ...m });
    assert.deepEqual(a, b);
    assert.deepEqual(a, c);
    assert.equal(peer.requests.length, before + 1);
    const d = await twilio.send({ ...m, attempt: 2 });
    assert.equal(d.ok, true);
    assert.equal(peer.requests.length, before + 2);
  });

  it('maps Twilio error codes to failures, retryable only where a later attempt can succeed', async () => {
    const cases: [string, string, boolean][] = [
      ['+15005550001', '21211', false],
      ['+15005550002', '21612', false],
      ['+15005550009', '21614', false],
      ['+15005550010', '21610', false],
      ['+15005550011', '20429', true],
      ['+15005550012', '20500', true],
      ['+15005550013', '30006', true],
      ['+15005550014', '21999', false],
    ];
    for (const [to, code, retryable] of cases) {
      const res = await twilio.send(message(to));
      assert.equal(res.ok, false, to);
      if (!res.ok) {
        assert.equal(res.status, 'failed');
        assert.equal(res.error.code, code, to);
        assert.equal(res.retryable, retryable, to);
        assert.ok(res.error.description.length > 0);
      }
    }
  });

  it('answers a non-retryable failure when the credentials are refused', async () => {
    const wrong = new TwilioProvider({
      baseUrl,
      accountSid: SID,
      authToken: 'wrong',
      statusCallback: 'https://x.test/s',
    });
    const res = await wrong.send(message('+14155550125'));
    assert.equal(res.ok, false);
    if (!res.ok) {
      assert.equal(res.error.code, '20003');
      assert.equal(res.error.description, 'Authenticate');
      assert.equal(res.retryable, false);
    }
  });

  it('answers a retryable failure when the server does not answer in time or cannot be reached', async () => {
    const slow = new TwilioProvider({
      baseUrl,
      accountSid: SID,
      authToken: TOKEN,
      statusCallback: 'https://x.test/s',
      timeoutMs: 200,
    });
    const res = await slow.send(message('+15005550015'));
    assert.equal(res.ok, false);
    if (!res.ok) {
      assert.equal(res.error.code, 'TWILIO-TIMEOUT');
      assert.equal(res.retryable, true);
    }
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const down = new TwilioProvider({
      baseUrl: `http://127.0.0.1:${port}`,
      accountSid: SID,
      authToken: TOKEN,
      statusCallback: 'x',
    });
    const res2 = await down.send(message('+14155550126'));
    assert.equal(res2.ok, false);
    if (!res2.ok) {
      assert.equal(res2.error.code, 'TWILIO-DOWN');
      assert.equal(res2.retryable, true);
    }
  });
});

describe('verifyTwilioSignature', () => {
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const params = {
    CallSid: 'CA1234567890ABCDE',
    Caller: '+14158675309',
    Digits: '1234',
    From: '+14158675309',
    To: '+18005551212',
  };

  it("accepts Twilio's published example signature", () => {
    assert.equal(verifyTwilioSignature('12345', url, params, 'RSOYDt4T1cUTdK1PDd93/VVr8B8='), true);
    assert.equal(twilioSignature('12345', url, params), 'RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  });

  it('rejects a changed parameter, URL, token, or a missing or malformed signature', () => {
    const sig = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';
    assert.equal(verifyTwilioSignature('12345', url, { ...params, Digits: '1235' }, sig), false);
    assert.equal(verifyTwilioSignature('12345', `${url}&x=1`, params, sig), false);
    assert.equal(verifyTwilioSignature('54321', url, params, sig), false);
    assert.equal(verifyTwilioSignature('12345', url, params, undefined), false);
    assert.equal(verifyTwilioSignature('12345', url, params, 'short'), false);
    assert.equal(verifyTwilioSignature('', url, params, sig), false);
  });
});

describe('parseTwilioStatus', () => {
  it('maps sent, delivered, undelivered and failed, with the error code', () => {
    assert.equal(parseTwilioStatus({ MessageSid: 'SM1', MessageStatus: 'sent' })?.status, 'sent');
    const d = parseTwilioStatus({ MessageSid: 'SM1', MessageStatus: 'delivered' });
    assert.equal(d?.status, 'delivered');
    assert.equal(d?.provider, 'twilio');
    assert.equal(d?.providerMessageId, 'SM1');
    assert.equal(d?.error, undefined);
    const u = parseTwilioStatus({ MessageSid: 'SM2', MessageStatus: 'undelivered', ErrorCode: '30003' });
    assert.equal(u?.status, 'undelivered');
    assert.deepEqual(u?.error, { code: '30003', description: 'Unreachable destination handset' });
    const f = parseTwilioStatus({ MessageSid: 'SM3', MessageStatus: 'failed', ErrorCode: '30006' });
    assert.equal(f?.status, 'failed');
    assert.equal(f?.error?.code, '30006');
  });

  it('ignores statuses before sent and callbacks without a sid', () => {
    for (const s of ['queued', 'accepted', 'sending', 'scheduled', 'bogus']) {
      assert.equal(parseTwilioStatus({ MessageSid: 'SM1', MessageStatus: s }), undefined, s);
    }
    assert.equal(parseTwilioStatus({ MessageStatus: 'delivered' }), undefined);
  });
});

describe('parseTwilioInbound', () => {
  it('maps From, To, Body and the media URLs', () => {
    const m = parseTwilioInbound({
      MessageSid: 'SMabc',
      From: '+14155550199',
      To: '+12125550100',
      Body: 'STOP',
      NumMedia: '2',
      MediaUrl0: 'https://api.twilio.com/m/0',
      MediaContentType0: 'image/jpeg',
      MediaUrl1: 'https://api.twilio.com/m/1',
    });
    assert.ok(m);
    assert.equal(m.provider, 'twilio');
    assert.equal(m.providerMessageId, 'SMabc');
    assert.equal(m.from, '+14155550199');
    assert.equal(m.to, '+12125550100');
    assert.equal(m.text, 'STOP');
    assert.deepEqual(m.media, [
      { url: 'https://api.twilio.com/m/0', type: 'image/jpeg' },
      { url: 'https://api.twilio.com/m/1' },
    ]);
  });

  it('answers undefined without a sid, From or To', () => {
    assert.equal(parseTwilioInbound({ From: '+1', To: '+2', Body: 'x' }), undefined);
    assert.equal(parseTwilioInbound({ MessageSid: 'SM1', To: '+2', Body: 'x' }), undefined);
    assert.equal(parseTwilioInbound({ MessageSid: 'SM1', From: '+1', Body: 'x' }), undefined);
  });
});
