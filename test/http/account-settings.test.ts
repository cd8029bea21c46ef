import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('PUT /v1/accounts/:accountId: name and time zone', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const put = (acc: TestAccount, json: object, auth = acc.auth) =>
    call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}`, { auth, json });

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 10 });
    b = await svc.newAccount();
  });
  after(() => svc.close());

  it('renames the account and sets its time zone; the STOP reply carries the new name', async () => {
    const res = await put(a, { name: "  Rosa's Bakery ", timezone: 'Europe/Paris' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(body(res).data.name, "Rosa's Bakery");
    assert.equal(body(res).data.timezone, 'Europe/Paris');
    const got = body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}`, { auth: a.auth })).data;
    assert.equal(got.name, "Rosa's Bakery");
    assert.equal(got.smartEncoding, true, 'other settings stay as they are');

    const ours = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }),
    ).data[0].number;
    const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+14155550601', to: ours, text: 'STOP' },
    });
    assert.equal(stop.statusCode, 200, stop.body);
    const reply = await eventually(async () =>
      body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages?limit=10`, { auth: a.auth }),
      ).data.find((m: { outgoing: boolean }) => m.outgoing),
    );
    assert.match(reply.message, /^Rosa's Bakery: /);
  });

  it('refuses an empty, too long or multi-line name and an unknown time zone with 400, changing nothing', async () => {
    for (const json of [
      { name: '   ' },
      { name: 'x'.repeat(101) },
      { name: 'Two\nlines' },
      { timezone: 'Mars/Olympus' },
      { timezone: '' },
    ]) {
      const res = await put(a, json);
      assert.equal(res.statusCode, 400, `${JSON.stringify(json)}: ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-001');
    }
    const got = body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}`, { auth: a.auth })).data;
    assert.equal(got.name, "Rosa's Bakery");
    assert.equal(got.timezone, 'Europe/Paris');
  });

  it('cannot rename another account', async () => {
    const res = await put(b, { name: 'Taken over' }, a.auth);
    assert.equal(res.statusCode, 403, res.body);
    const got = body(await call(svc.api, 'GET', `/v1/accounts/${b.accountId}`, { auth: b.auth })).data;
    assert.notEqual(got.name, 'Taken over');
  });
});
