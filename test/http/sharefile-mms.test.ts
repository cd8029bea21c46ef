import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, replyJson, twilioBasic } from '../support/fake-twilio.ts';
import { testPort } from '../support/ports.ts';
import * as F from '../support/sample-files.ts';

const SID = `AC${randomBytes(16).toString('hex')}`;
const TOKEN = randomBytes(16).toString('hex');

/** What the carrier got when it fetched a MediaUrl, as Twilio does before it delivers an MMS. */
interface Fetched {
  url: string;
  status: number;
  type: string | undefined;
  bytes: Buffer;
}

/**
 * A Twilio-like carrier: lists every number it is asked about (so numbers verify), accepts
 * Messages, and fetches each MediaUrl of a message before answering, as Twilio does.
 */
function mmsCarrier() {
  const sent: URLSearchParams[] = [];
  const fetched: Fetched[] = [];
  const server = http.createServer((req, res) => {
    readBody(req, async (raw) => {
      const reply = (status: number, json: unknown) => replyJson(res, status, json);
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.headers.authorization !== twilioBasic(SID, TOKEN)) return reply(401, { code: 20003 });
      if (req.method === 'GET' && url.pathname === `/2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json`) {
        const number = url.searchParams.get('PhoneNumber') ?? '';
        return reply(200, {
          incoming_phone_numbers: [
            { sid: 'PN1', phone_number: number, capabilities: { sms: true, mms: true } },
          ],
          page: 0,
          page_size: 50,
        });
      }
      if (req.method === 'POST' && url.pathname === `/2010-04-01/Accounts/${SID}/Messages.json`) {
        const form = new URLSearchParams(raw);
        for (const media of form.getAll('MediaUrl')) {
          const got = await fetch(media);
          fetched.push({
            url: media,
            status: got.status,
            type: got.headers.get('content-type') ?? undefined,
            bytes: Buffer.from(await got.arrayBuffer()),
          });
        }
        sent.push(form);
        return reply(201, { sid: `SM${randomBytes(16).toString('hex')}`, status: 'queued' });
      }
      reply(404, { code: 20404 });
    });
  });
  return { server, sent, fetched };
}

describe('an MMS through the Twilio-compatible provider with a hosted file as media', () => {
  const carrier = mmsCarrier();
  let svc: TestService;
  let a: TestAccount;
  let dataDir: string;
  let externalsUrl: string;

  before(async () => {
    const twilioUrl = await listenLoopback(carrier.server);
    dataDir = await mkdtemp(path.join(tmpdir(), 'sparrow-files-'));
    // The public listener is started on it, so that its links can be fetched.
    const port = await testPort();
    // A loopback EXTERNALS_URL, as in development: the service's own links must still be valid media.
    externalsUrl = `http://127.0.0.1:${port}`;
    svc = await startTestService({
      dataDir,
      externalsUrl,
      twilio: { baseUrl: twilioUrl, accountSid: SID, authToken: TOKEN },
    });
    await svc.externals.listen({ port, host: '127.0.0.1' });
    a = await svc.newAccount({ balance: 100 });
  });
  after(async () => {
    await svc.close();
    await closeServer(carrier.server);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('sends the link as MediaUrl, and the carrier fetches the exact bytes with their type', async () => {
    const up = await svc.api.inject({
      method: 'POST',
      url: '/v1/tools/sharefile',
      headers: { ...a.auth, 'content-type': 'image/jpeg' },
      payload: F.JPEG,
    });
    assert.equal(up.statusCode, 200, up.body);
    const { link } = body(up).data;
    assert.ok(link.startsWith(`${externalsUrl}/files/`));

    const base = `/v1/accounts/${a.accountId}`;
    const group = body(
      await call(svc.api, 'POST', `${base}/groups`, { auth: a.auth, json: { name: 'MMS' } }),
    ).data;
    const number = await call(svc.api, 'POST', `${base}/phonenumbers`, {
      auth: a.auth,
      json: { number: '+14155552301', provider: 'twilio', groupId: group.id },
    });
    assert.equal(number.statusCode, 201, number.body);
    const sendRes = await call(svc.api, 'POST', `${base}/messages`, {
      auth: a.auth,
      json: {
        contacts: [{ mobile: { number: '+12025550150' } }],
        template: 'Your picture',
        type: 'MMS',
        media: [{ url: link, type: 'image/jpeg' }],
        phoneNumberFilter: { group: { id: group.id } },
      },
    });
    assert.equal(sendRes.statusCode, 200, sendRes.body);

    svc.startWorkers([dispatch]);
    const form = await eventually(async () => carrier.sent.find((f) => f.get('From') === '+14155552301'));
    assert.deepEqual(form.getAll('MediaUrl'), [link]);
    const got = carrier.fetched.find((f) => f.url === link);
    assert.ok(got, 'the carrier fetched the media URL');
    assert.equal(got.status, 200);
    assert.equal(got.type, 'image/jpeg');
    assert.deepEqual(got.bytes, F.JPEG);
  });

  it('still refuses other loopback media URLs with 400 MSG-009', async () => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: {
        contacts: [{ mobile: { number: '+12025550151' } }],
        template: 'x',
        type: 'MMS',
        media: [{ url: `${externalsUrl}/l/abcdefghij` }],
      },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(body(res).error.code, 'MSG-009');
  });
});
