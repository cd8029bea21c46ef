import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, replyJson, twilioBasic } from '../support/fake-twilio.ts';

const SID = `AC${randomBytes(16).toString('hex')}`;
const TOKEN = randomBytes(16).toString('hex');

/**
 * A local server speaking the parts of Twilio's API a Twilio number needs: the IncomingPhoneNumbers
 * list filtered by PhoneNumber (the numbers this account holds) and the Messages resource.
 */
function fakeTwilio() {
  const held = new Set<string>();
  const sent: URLSearchParams[] = [];
  const lookups: string[] = [];
  const server = http.createServer((req, res) => {
    readBody(req, (raw) => {
      const reply = (status: number, json: unknown) => replyJson(res, status, json);
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.headers.authorization !== twilioBasic(SID, TOKEN))
        return reply(401, { code: 20003, message: 'Authenticate', status: 401 });
      if (req.method === 'GET' && url.pathname === `/2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json`) {
        const number = url.searchParams.get('PhoneNumber') ?? '';
        lookups.push(number);
        const list = held.has(number)
          ? [{ sid: `PN${number.slice(1)}`, phone_number: number, capabilities: { sms: true, voice: true } }]
          : [];
        return reply(200, { incoming_phone_numbers: list, page: 0, page_size: 50 });
      }
      if (req.method === 'POST' && url.pathname === `/2010-04-01/Accounts/${SID}/Messages.json`) {
        const form = new URLSearchParams(raw);
        sent.push(form);
        return reply(201, { sid: `SM${randomBytes(16).toString('hex')}`, status: 'queued' });
      }
      reply(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    });
  });
  return { server, held, sent, lookups };
}

describe('phone numbers with provider twilio', () => {
  let svc: TestService;
  let a: TestAccount;
  const twilio = fakeTwilio();
  let n = 0;
  before(async () => {
    const baseUrl = await listenLoopback(twilio.server);
    svc = await startTestService({ twilio: { baseUrl, accountSid: SID, authToken: TOKEN } });
    a = await svc.newAccount({ balance: 100 });
  });
  after(async () => {
    await svc.close();
    await closeServer(twilio.server);
  });

  const base = () => `/v1/accounts/${a.accountId}`;
  /** A group of its own holding one newly taken Twilio number. */
  async function numberInOwnGroup(number: string) {
    const group = body(
      await call(svc.api, 'POST', `${base()}/groups`, { auth: a.auth, json: { name: `G${++n}` } }),
    ).data;
    const res = await call(svc.api, 'POST', `${base()}/phonenumbers`, {
      auth: a.auth,
      json: { number, provider: 'twilio', groupId: group.id },
    });
    assert.equal(res.statusCode, 201, res.body);
    return { group, phone: body(res).data };
  }
  const send = (groupId: string, mobile: string) =>
    call(svc.api, 'POST', `${base()}/messages`, {
      auth: a.auth,
      json: {
        contacts: [{ mobile: { number: mobile } }],
        template: 'Hello from a brought number',
        phoneNumberFilter: { group: { id: groupId } },
      },
    });

  it('fails the queued messages of a number that lost its verification with NUM-010, refunded', async () => {
    twilio.held.add('+14155552005');
    const { group, phone } = await numberInOwnGroup('+14155552005');
    assert.equal(phone.verified, true);
    const balance = async () =>
      body(await call(svc.api, 'GET', `${base()}/balance`, { auth: a.auth })).data.balance as number;
    const before = await balance();
    // Queued while verified; the dispatcher starts only once the number has lost it.
    const res = await send(group.id, '+12025550114');
    assert.equal(res.statusCode, 200, res.body);
    const id = body(res).data.messages[0].id;
    await svc.db.query('UPDATE phone_numbers SET verified = false WHERE account_id = $1 AND id = $2', [
      a.accountId,
      phone.id,
    ]);
    svc.startWorkers([dispatch]);
    const failed = await eventually(async () => {
      const m = body(await call(svc.api, 'GET', `${base()}/messages/${id}`, { auth: a.auth })).data;
      return m.status === 'failed' && m;
    });
    assert.equal(failed.error.code, 'NUM-010');
    assert.ok(before > 0);
    await eventually(async () => (await balance()) === before);
    assert.ok(!twilio.sent.some((f) => f.get('From') === '+14155552005'));
  });

  it('is verified when the Twilio account lists it, and sends through Twilio', async () => {
    twilio.held.add('+14155552001');
    const { group, phone } = await numberInOwnGroup('+1 415 555 2001');
    assert.equal(phone.verified, true);
    assert.ok(twilio.lookups.includes('+14155552001'));
    const res = await send(group.id, '+12025550111');
    assert.equal(res.statusCode, 200, res.body);
    await eventually(async () => twilio.sent.find((f) => f.get('From') === '+14155552001'));
  });

  it('is verified: false when the Twilio account does not list it, and a send from it is refused with 400 NUM-010', async () => {
    const { group, phone } = await numberInOwnGroup('+14155552002');
    assert.equal(phone.verified, false);
    const again = await call(svc.api, 'GET', `${base()}/phonenumbers/${phone.id}`, { auth: a.auth });
    assert.equal(body(again).data.verified, false);
    const res = await send(group.id, '+12025550112');
    assert.equal(res.statusCode, 400);
    assert.equal(body(res).error.code, 'NUM-010');
    assert.ok(!twilio.sent.some((f) => f.get('From') === '+14155552002'));
  });

  it('becomes verified through POST …/verify once the Twilio account lists it', async () => {
    const { group, phone } = await numberInOwnGroup('+14155552003');
    assert.equal(phone.verified, false);
    twilio.held.add('+14155552003');
    const res = await call(svc.api, 'POST', `${base()}/phonenumbers/${phone.id}/verify`, { auth: a.auth });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(body(res).data.verified, true);
    assert.equal((await send(group.id, '+12025550113')).statusCode, 200);
  });

  it('is asked again when a number is switched to twilio', async () => {
    // An SMPP number is the account's once the operator assigned it (issue 28).
    const { insertAssignment } = await import('../../src/db/queries/number-assignments.ts');
    await insertAssignment(svc.db, {
      provider: 'smpp',
      number: '+14155552004',
      accountId: a.accountId,
      by: {},
    });
    const taken = await call(svc.api, 'POST', `${base()}/phonenumbers`, {
      auth: a.auth,
      json: { number: '+14155552004', provider: 'smpp' },
    });
    assert.equal(body(taken).data.verified, true);
    const res = await call(svc.api, 'PUT', `${base()}/phonenumbers/${body(taken).data.id}`, {
      auth: a.auth,
      json: { provider: 'twilio' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(body(res).data.verified, false);
  });

  it('is verified: false when Twilio refuses the credentials or does not answer', async () => {
    const { providerVerifier } = await import('../../src/domain/numbers/verify-with-provider.ts');
    twilio.held.add('+14155552006');
    const baseUrl = svc.config.twilio.baseUrl;
    assert.equal(
      await providerVerifier({ baseUrl, accountSid: SID, authToken: TOKEN })('twilio', '+14155552006'),
      true,
    );
    assert.equal(
      await providerVerifier({ baseUrl, accountSid: SID, authToken: 'wrong' })('twilio', '+14155552006'),
      false,
    );
    assert.equal(
      await providerVerifier({ baseUrl, accountSid: '', authToken: '' })('twilio', '+14155552006'),
      false,
    );
    assert.equal(
      await providerVerifier({ baseUrl: 'http://127.0.0.1:9', accountSid: SID, authToken: TOKEN })(
        'twilio',
        '+14155552006',
      ),
      false,
    );
  });
});
