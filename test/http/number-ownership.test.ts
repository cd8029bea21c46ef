import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  assignNumber,
  unassignNumber,
  unverifyUnassignedNumbers,
} from '../../src/domain/numbers/number-assignments.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import {
  addProviderNumber,
  body,
  call,
  eventually,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers.ts';
import { closeServer, listenLoopback, replyJson, twilioBasic } from '../support/fake-twilio.ts';
import { RecordingSmsc } from '../support/recording-smsc.ts';

/**
 * Issue 28: a number is sendable only by the account it belongs to. An SMPP carrier (`carrier-b`,
 * a recording SMSC on loopback) cannot be asked whether a number is an account's: the operator
 * assigns it (`sparrow numbers assign`, here its domain call). A Twilio-compatible instance (`tw2`)
 * is still asked.
 */
describe('who may send from a number on a real carrier', () => {
  const smsc = new RecordingSmsc('sparrow-b', 'secret-b');
  const tw2Holds = new Set<string>();
  const tw2 = http.createServer((req, res) => {
    if (req.headers.authorization !== twilioBasic('AC2', 'token-two')) return replyJson(res, 401, {});
    const url = new URL(req.url ?? '/', 'http://x');
    const number = url.searchParams.get('PhoneNumber') ?? '';
    const listed = tw2Holds.has(number) ? [{ phone_number: number, capabilities: { sms: true } }] : [];
    replyJson(res, 200, { incoming_phone_numbers: listed });
  });
  let svc: TestService;
  const OPERATOR = { id: 'cli', name: 'sparrow numbers', source: 'cli' };
  const CARRIER_NUMBER = '+18005551234';

  before(async () => {
    const [smscUrl, tw2Url] = await Promise.all([smsc.listen(), listenLoopback(tw2)]);
    svc = await startTestService(
      {},
      {
        env: {
          PROVIDERS: JSON.stringify([
            { name: 'carrier-b', kind: 'smpp', url: smscUrl, systemId: 'sparrow-b', password: 'secret-b' },
            { name: 'tw2', kind: 'twilio', baseUrl: tw2Url, accountSid: 'AC2', authToken: 'token-two' },
          ]),
        },
      },
    );
    svc.startWorkers([dispatch]);
    await eventually(async () => svc.ctx.providers.get('carrier-b')?.linkUp?.());
  });
  after(async () => {
    await svc?.close();
    await smsc.close();
    await closeServer(tw2);
  });

  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const numbers = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `${base(acc)}/phonenumbers`, { auth: acc.auth })).data as {
      id: string;
      number: string;
      provider: string;
      verified: boolean;
    }[];
  async function send(acc: TestAccount, to: string) {
    const res = await call(svc.api, 'POST', `${base(acc)}/messages`, {
      auth: acc.auth,
      json: { contacts: [{ mobile: { number: to } }], template: 'Whose number?' },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  type Row = { to_number: string; from_number: string; status: string; provider: string };
  const settled = (acc: TestAccount, to: string) =>
    eventually(async () => {
      const { rows } = await svc.db.query<Row>(
        `SELECT to_number, from_number, status, provider FROM messages
          WHERE account_id = $1 AND outgoing AND to_number = $2 AND status NOT IN ('queued', 'sending')`,
        [acc.accountId, to],
      );
      return rows[0];
    });

  it("refuses a tenant a carrier number the operator has not assigned to it (the issue's POST and a PUT)", async () => {
    const b = await svc.newAccount({ balance: 10 });
    const take = await call(svc.api, 'POST', `${base(b)}/phonenumbers`, {
      auth: b.auth,
      json: { number: CARRIER_NUMBER, provider: 'carrier-b' },
    });
    assert.equal(take.statusCode, 403, take.body);
    assert.equal(body(take).error.code, 'NUM-011');
    assert.match(body(take).error.message, /not assigned to this account on carrier-b/);
    assert.deepEqual(
      (await numbers(b)).map((n) => n.number).filter((n) => n === CARRIER_NUMBER),
      [],
    );
    // Nor can it move its simulator number onto the carrier.
    const [own] = await numbers(b);
    const put = await call(svc.api, 'PUT', `${base(b)}/phonenumbers/${own.id}`, {
      auth: b.auth,
      json: { provider: 'carrier-b' },
    });
    assert.equal(put.statusCode, 403, put.body);
    assert.equal(body(put).error.code, 'NUM-011');
    assert.equal((await numbers(b))[0].provider, 'simulator');
  });

  it('makes an assigned number sendable by its account only; another account can neither take nor send from it', async () => {
    const a = await svc.newAccount({ balance: 10 });
    const b = await svc.newAccount({ balance: 10 });
    // A's simulator number goes: the assigned number is then its default group's only sender.
    const [sim] = await numbers(a);
    assert.equal(
      (await call(svc.api, 'DELETE', `${base(a)}/phonenumbers/${sim.id}`, { auth: a.auth })).statusCode,
      200,
    );
    const made = await assignNumber(
      svc.db,
      { accountId: a.accountId, number: CARRIER_NUMBER, provider: 'carrier-b' },
      OPERATOR,
    );
    assert.deepEqual([made.numberProvider, made.verified], ['carrier-b', true]);
    const [held] = await numbers(a);
    assert.deepEqual([held.number, held.provider, held.verified], [CARRIER_NUMBER, 'carrier-b', true]);
    // Assigning again is harmless; to another account, refused.
    await assignNumber(
      svc.db,
      { accountId: a.accountId, number: CARRIER_NUMBER, provider: 'carrier-b' },
      OPERATOR,
    );
    await assert.rejects(
      assignNumber(
        svc.db,
        { accountId: b.accountId, number: CARRIER_NUMBER, provider: 'carrier-b' },
        OPERATOR,
      ),
      (err: { code?: string; message: string }) =>
        err.code === 'NUM-002' && err.message.includes(a.accountId),
    );

    await send(a, '+12025550111');
    const sent = await settled(a, '+12025550111');
    assert.equal(sent.provider, 'carrier-b');
    await eventually(async () => smsc.received.some((r) => r.to === '+12025550111'));
    assert.deepEqual(
      smsc.received.filter((r) => r.to === '+12025550111').map((r) => r.from),
      [CARRIER_NUMBER],
    );

    // B: refused the number (the same answer whether someone holds it or not), and its route to the
    // carrier does not carry its own simulator number there either.
    const take = await call(svc.api, 'POST', `${base(b)}/phonenumbers`, {
      auth: b.auth,
      json: { number: CARRIER_NUMBER, provider: 'carrier-b' },
    });
    assert.equal(body(take).error.code, 'NUM-011');
    const route = await call(svc.api, 'POST', `${base(b)}/routes`, {
      auth: b.auth,
      json: { prefix: '1', providers: [{ provider: 'carrier-b' }] },
    });
    assert.equal(route.statusCode, 201, route.body);
    await send(b, '+12025550112');
    const other = await settled(b, '+12025550112');
    assert.notEqual(other.from_number, CARRIER_NUMBER);
    assert.equal(other.provider, 'simulator');
    assert.deepEqual(
      smsc.received.filter((r) => r.to === '+12025550112'),
      [],
    );

    // Taken back: A's number is released and cannot send any more.
    const back = await unassignNumber(
      svc.db,
      { accountId: a.accountId, number: CARRIER_NUMBER, provider: 'carrier-b' },
      OPERATOR,
    );
    assert.deepEqual([back.unassigned, back.released], [true, true]);
    assert.deepEqual(await numbers(a), []);
  });

  it('never sends a simulator number through the carrier on a tenant route, until the operator assigns it there', async () => {
    const c = await svc.newAccount({ balance: 10 });
    const [sim] = await numbers(c);
    const route = await call(svc.api, 'POST', `${base(c)}/routes`, {
      auth: c.auth,
      json: {
        prefix: '1202',
        providers: [
          { provider: 'carrier-b', priority: 1 },
          { provider: 'tw2', priority: 2 },
        ],
      },
    });
    assert.equal(route.statusCode, 201, route.body);
    await send(c, '+12025550121');
    const first = await settled(c, '+12025550121');
    // The carriers of the route cannot send from it: it goes through its own provider.
    assert.deepEqual([first.from_number, first.provider], [sim.number, 'simulator']);
    assert.deepEqual(
      smsc.received.filter((r) => r.from === sim.number),
      [],
    );

    // The operator's assignment on carrier-b opens the route for this account's number.
    await assignNumber(
      svc.db,
      { accountId: c.accountId, number: sim.number, provider: 'carrier-b' },
      OPERATOR,
    );
    assert.equal((await numbers(c))[0].provider, 'simulator');
    await send(c, '+12025550122');
    const second = await settled(c, '+12025550122');
    assert.deepEqual([second.from_number, second.provider], [sim.number, 'carrier-b']);
    await eventually(async () => smsc.received.some((r) => r.to === '+12025550122'));
    assert.deepEqual(
      smsc.received.filter((r) => r.from === sim.number).map((r) => r.to),
      ['+12025550122'],
    );
  });

  it('marks unverified, at start, carrier numbers taken before assignments existed; others stay', async () => {
    const d = await svc.newAccount({ balance: 10 });
    const legacy = await addProviderNumber(svc.db, d.accountId, 'carrier-b');
    const onTwilio = await addProviderNumber(svc.db, d.accountId, 'tw2');
    const assigned = await addProviderNumber(svc.db, d.accountId, 'carrier-b');
    await assignNumber(svc.db, { accountId: d.accountId, number: assigned, provider: 'carrier-b' }, OPERATOR);
    const marked = await unverifyUnassignedNumbers(svc.db, svc.config.providers);
    assert.deepEqual(
      marked.filter((m) => m.account_id === d.accountId).map((m) => [m.number, m.provider]),
      [[legacy, 'carrier-b']],
    );
    const byNumber = new Map((await numbers(d)).map((n) => [n.number, n.verified]));
    assert.deepEqual(
      [byNumber.get(legacy), byNumber.get(onTwilio), byNumber.get(assigned)],
      [false, true, true],
    );
    // Its own verify cannot vouch for it either: only the operator can.
    const row = (await numbers(d)).find((n) => n.number === legacy);
    const again = await call(svc.api, 'POST', `${base(d)}/phonenumbers/${row?.id}/verify`, { auth: d.auth });
    assert.equal(body(again).data.verified, false);
    assert.deepEqual(await unverifyUnassignedNumbers(svc.db, svc.config.providers), []);
  });

  it('still verifies a number of a Twilio-compatible instance with that account', async () => {
    const e = await svc.newAccount({ balance: 10 });
    tw2Holds.add('+14155550177');
    const held = await call(svc.api, 'POST', `${base(e)}/phonenumbers`, {
      auth: e.auth,
      json: { number: '+14155550177', provider: 'tw2' },
    });
    assert.equal(held.statusCode, 201, held.body);
    assert.equal(body(held).data.verified, true);
    const notHeld = await call(svc.api, 'POST', `${base(e)}/phonenumbers`, {
      auth: e.auth,
      json: { number: '+14155550178', provider: 'tw2' },
    });
    assert.equal(notHeld.statusCode, 201, notHeld.body);
    assert.equal(body(notHeld).data.verified, false);
  });
});
