import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('POST …/messages/estimate: a send reviewed before it goes', () => {
  let svc: TestService;
  let a: TestAccount;
  let other: TestAccount;
  let seq = 0;
  const nextMobile = () => `+1201${String(7_000_000 + seq++).padStart(7, '0')}`;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const estimate = (acc: TestAccount, json: object, auth = acc.auth) =>
    call(svc.api, 'POST', `${base(acc)}/messages/estimate`, { auth, json });
  const newContact = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
      auth: acc.auth,
      json: { mobile: nextMobile(), ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0] as { id: string; mobile: { number: string } };
  };
  const balance = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `${base(acc)}/balance`, { auth: acc.auth })).data.balance as number;
  const totals = async (acc: TestAccount) => ({
    messages: body(await call(svc.api, 'GET', `${base(acc)}/messages?limit=1`, { auth: acc.auth })).pagination
      .totalCount as number,
    contacts: body(await call(svc.api, 'GET', `${base(acc)}/contacts?limit=1`, { auth: acc.auth })).pagination
      .totalCount as number,
  });

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 50 });
    other = await svc.newAccount({ balance: 50 });
  });
  after(() => svc.close());

  it('counts recipients after opt-outs and invalid numbers, segments per rendered text, UCS-2 names, price with currency; changes nothing', async () => {
    const plain = await newContact(a, { firstName: 'Ann' });
    const accented = await newContact(a, { firstName: 'Zoë' });
    const stopper = await newContact(a, { firstName: 'Stop' });
    const numbers = body(await call(svc.api, 'GET', `${base(a)}/phonenumbers`, { auth: a.auth })).data;
    const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: stopper.mobile.number, to: numbers[0].number, text: 'STOP' },
    });
    assert.equal(stop.statusCode, 200, stop.body);
    const before = { balance: await balance(a), ...(await totals(a)) };
    // 70 GSM-7 characters and a name: one segment for Ann, two (UCS-2: 75 > 70 units) for Zoë.
    const text = `Hi {{{firstName}}}, ${'x'.repeat(66)}`;
    const res = await estimate(a, {
      contacts: [
        { id: plain.id },
        { id: accented.id },
        { id: stopper.id },
        { mobile: { number: '12345' } },
        { mobile: { number: nextMobile() } },
      ],
      template: text,
    });
    assert.equal(res.statusCode, 200, res.body);
    const e = body(res).data;
    assert.equal(e.requested, 5);
    assert.equal(e.valid, 3);
    assert.equal(e.failed, 2);
    assert.deepEqual(e.failures.map((f: { code: string; count: number }) => [f.code, f.count]).sort(), [
      ['CONT-001', 1],
      ['CONT-010', 1],
    ]);
    assert.equal(e.ucs2, 1);
    assert.equal(e.segments, 1 + 2 + 1);
    assert.equal(e.currency, 'USD');
    assert.ok(e.estimatedPrice > 0);
    assert.equal(e.balance, before.balance);
    assert.equal(e.balanceCovers, true);
    assert.equal(e.held, 0);
    // Nothing was sent, charged or created (not even the new mobile's contact).
    assert.deepEqual({ balance: await balance(a), ...(await totals(a)) }, before);
  });

  it('answers balanceCovers: false instead of 402 when the balance cannot cover it', async () => {
    const poor = await svc.newAccount({ balance: 0.001 });
    const c = await newContact(poor);
    const res = await estimate(poor, { contacts: [{ id: c.id }], template: 'too expensive' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(body(res).data.balanceCovers, false);
    assert.equal(body(res).data.valid, 1);
  });

  it('refuses what a send refuses: no text, no recipients, another account’s contact or list', async () => {
    const theirs = await newContact(other);
    const list = body(
      await call(svc.api, 'POST', `${base(other)}/lists`, { auth: other.auth, json: { name: 'Theirs' } }),
    ).data;
    for (const [json, code] of [
      [{ contacts: [{ id: theirs.id }], template: '' }, 'MSG-003'],
      [{ template: 'hi' }, 'MSG-002'],
      [{ contacts: [{ id: theirs.id }], template: 'hi' }, 'CONT-002'],
      [{ listId: (Array.isArray(list) ? list[0] : list).id, template: 'hi' }, 'LIST-001'],
      [{ contacts: [{ id: 'not-an-id' }], template: 'hi' }, 'VAL-001'],
    ] as const) {
      const res = await estimate(a, json);
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${code}: ${res.body}`);
      assert.equal(body(res).error.code, code, res.body);
    }
    // And another account's token cannot estimate in this account.
    const res = await estimate(
      a,
      { contacts: [{ mobile: { number: nextMobile() } }], template: 'hi' },
      other.auth,
    );
    assert.equal(res.statusCode, 403, res.body);
  });
});
