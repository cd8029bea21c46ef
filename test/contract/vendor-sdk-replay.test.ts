import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestAccount, type TestService } from '../helpers.ts';

/*
 * Replays, byte for byte in what matters, the requests the vendor's own Node SDK makes, and checks
 * what the SDK does with the answers. The SDK (Sakari-Io/sakari-nodejs-sdk, version 0.0.12, axios
 * 0.18 in Node):
 *
 * - src/index.js `getAccessToken`: `axios.post(`${BASE_URL}/oauth2/token`, {grant_type:
 *   'client_credentials', client_id, client_secret})` (a JSON body), then reads
 *   `resp.data.access_token`; `isExpired` runs `jwt.decode(token).exp` through moment, so the token
 *   must be a JWT carrying a numeric `exp`. (moment reads `exp` as milliseconds, so the SDK thinks
 *   every token expired and asks for a new one before each call: the endpoint must take that.)
 * - src/messages.js `send`: `axios.post(`${BASE_URL}/v1/accounts/${acctId}/messages`, {contacts,
 *   conversations, template}, {headers: {Authorization: `bearer ${token}`}})` (scheme in lower
 *   case), resolving to `resp.data` (the envelope); `sendOne(to, message)` sends `{contacts:
 *   [{mobile: {number: to}}], template: message}` (no country; `conversations` undefined, so left
 *   out by JSON.stringify). On an error it logs `err.response.data`. The commented-out sample in
 *   test/index.js reads `res.data.invalid`.
 * - BASE_URL (src/constants.js) is the service root; here the loopback listener.
 */

/** The headers axios 0.18 sends from Node with a JSON body. */
const AXIOS_HEADERS = {
  accept: 'application/json, text/plain, */*',
  'content-type': 'application/json;charset=utf-8',
  'user-agent': 'axios/0.18.0',
};

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The parsed JSON, untyped, as axios gives it to the SDK. */
  data: any;
}

describe('the vendor Node SDK, replayed (Sakari-Io/sakari-nodejs-sdk 0.0.12)', () => {
  let svc: TestService;
  let a: TestAccount;
  let base: string;
  let seq = 0;
  const mobile = () => `+1201555${String(6000 + seq++).padStart(4, '0')}`;

  /** axios.post(url, body, {headers}) as the SDK calls it, over a real socket. */
  function axiosPost(path: string, json: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const payload = JSON.stringify(json);
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${base}${path}`,
        {
          method: 'POST',
          // Node's agent of axios 0.18's day: no keep-alive.
          agent: false,
          headers: { ...AXIOS_HEADERS, ...headers, 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let data: unknown;
            try {
              data = JSON.parse(text); // axios parses a JSON answer into resp.data
            } catch {
              data = text;
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, data });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The SDK's getAccessToken: a fresh token, as it asks before every call. */
  async function getAccessToken(): Promise<string> {
    const resp = await axiosPost('/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: a.clientId,
      client_secret: a.clientSecret,
    });
    assert.equal(resp.status, 200, resp.text);
    return resp.data.access_token;
  }

  /** The SDK's Messages.send({contacts, conversations, template}). */
  async function send(req: { contacts?: unknown; conversations?: unknown; template?: unknown }) {
    const token = await getAccessToken();
    const { contacts, conversations, template } = req;
    return axiosPost(
      `/v1/accounts/${a.accountId}/messages`,
      { contacts, conversations, template },
      { authorization: `bearer ${token}` },
    );
  }

  /** The SDK's Messages.sendOne(to, message). */
  const sendOne = (to: string, message: string) =>
    send({ contacts: [{ mobile: { number: to } }], template: message });

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
    await svc.api.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(svc.api.server.address() as AddressInfo).port}`;
  });
  after(() => svc.close());

  it('token: the JSON grant answers access_token (a JWT with a numeric exp) and token_type "bearer"', async () => {
    const resp = await axiosPost('/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: a.clientId,
      client_secret: a.clientSecret,
    });
    assert.equal(resp.status, 200, resp.text);
    assert.match(String(resp.headers['content-type']), /^application\/json/);
    assert.equal(typeof resp.data.access_token, 'string');
    assert.equal(resp.data.token_type, 'bearer');
    // jwt.decode(token): three base64url parts, the middle one JSON claims.
    const parts = resp.data.access_token.split('.');
    assert.equal(parts.length, 3);
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    assert.equal(typeof claims.exp, 'number');
    assert.ok(Number.isInteger(claims.exp), 'exp is NumericDate: whole seconds');
    assert.ok(claims.exp > Date.now() / 1000, 'exp is in the future');
    // The SDK asks again before every call (see above): a second grant right away works too.
    const again = await axiosPost('/oauth2/token', {
      grant_type: 'client_credentials',
      client_id: a.clientId,
      client_secret: a.clientSecret,
    });
    assert.equal(again.status, 200, again.text);
  });

  it('sendOne(to, message): a number without a country is sent; resp.data is the envelope', async () => {
    const to = mobile();
    const resp = await sendOne(to, 'Your code is 1234');
    assert.equal(resp.status, 200, resp.text);
    const res = resp.data;
    assert.equal(res.success, true);
    assert.equal(typeof res.data.jobId, 'string');
    assert.ok(Array.isArray(res.data.invalid), 'res.data.invalid, as the SDK sample reads it');
    assert.equal(res.data.invalid.length, 0);
    assert.equal(res.data.messages.length, 1);
    const m = res.data.messages[0];
    assert.equal(m.message, 'Your code is 1234');
    assert.equal(m.contact.mobile.number, to);
    assert.equal(typeof m.conversation.id, 'string');
  });

  it('sendOne("302-624-2325", message): a national number as the description writes them is sent, read in the US', async () => {
    const resp = await sendOne('302-624-2325', 'Hello from the SDK');
    assert.equal(resp.status, 200, resp.text);
    const d = resp.data.data;
    assert.deepEqual(d.invalid, [], 'not refused as CONT-001');
    assert.equal(d.valid, 1);
    assert.equal(d.messages.length, 1);
    assert.equal(d.messages[0].contact.mobile.number, '+13026242325');
    assert.equal(d.messages[0].message, 'Hello from the SDK');
  });

  it('send({contacts, conversations, template}): contacts and existing conversations both receive it', async () => {
    const first = await sendOne(mobile(), 'Hello');
    assert.equal(first.status, 200, first.text);
    const conversationId = first.data.data.messages[0].conversation.id;
    const to = mobile();
    const resp = await send({
      contacts: [{ mobile: { number: to }, firstName: 'Ada' }],
      conversations: [conversationId],
      template: 'Hi {{{firstName}}}, thanks for writing',
    });
    assert.equal(resp.status, 200, resp.text);
    const d = resp.data.data;
    assert.equal(d.messages.length, 2);
    const toContact = d.messages.find(
      (m: { contact: { mobile: { number: string } } }) => m.contact.mobile.number === to,
    );
    assert.equal(toContact.message, 'Hi Ada, thanks for writing');
    assert.ok(d.messages.some((m: { conversation: { id: string } }) => m.conversation.id === conversationId));
    assert.deepEqual(d.invalid, []);
  });

  it('an invalid number comes back in res.data.invalid with its error, beside the valid ones', async () => {
    const resp = await send({
      contacts: [{ mobile: { number: mobile() } }, { mobile: { number: '12' } }],
      template: 'Hello',
    });
    assert.equal(resp.status, 200, resp.text);
    const d = resp.data.data;
    assert.equal(d.requested, 2);
    assert.equal(d.valid, 1);
    assert.equal(d.invalid.length, 1);
    assert.equal(d.invalid[0].mobile.number, '12');
    assert.equal(d.invalid[0].error.code, 'CONT-001');
    assert.equal(typeof d.invalid[0].error.description, 'string');
  });

  it('a refused call answers JSON the SDK can log (err.response.data): success false and error.code', async () => {
    const resp = await send({ contacts: [{ mobile: { number: mobile() } }] });
    assert.ok(resp.status >= 400 && resp.status < 500, `${resp.status}: ${resp.text}`);
    assert.equal(resp.data.success, false);
    assert.equal(typeof resp.data.error.code, 'string');
    const noToken = await axiosPost(`/v1/accounts/${a.accountId}/messages`, { template: 'x' });
    assert.equal(noToken.status, 401);
    assert.equal(noToken.data.success, false);
  });
});
