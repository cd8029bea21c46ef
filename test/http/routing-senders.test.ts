import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addNumberToGroup } from '../../src/db/queries/groups.ts';
import { insertPhoneNumber } from '../../src/db/queries/phone-numbers.ts';
import { newId } from '../../src/util/ids.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('a sender suitable for the destination', () => {
  let svc: TestService;
  let a: TestAccount;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
  });
  after(() => svc.close());

  const send = async (mobiles: string[]) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { contacts: mobiles.map((number) => ({ mobile: { number } })), template: 'Hello' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data.job?.id ?? body(res).data.id;
  };
  const fromOf = async (to: string[]) => {
    const { rows } = await svc.db.query<{ to_number: string; from_number: string }>(
      `SELECT DISTINCT ON (to_number) to_number, from_number FROM messages
       WHERE account_id = $1 AND outgoing AND to_number = ANY($2::text[]) ORDER BY to_number, id DESC`,
      [a.accountId, to],
    );
    return new Map(rows.map((r) => [r.to_number, r.from_number]));
  };

  it("sends from a number of the recipient's country when the group has one; a sticky sender still wins", async () => {
    const groups = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/groups`, { auth: a.auth }),
    ).data;
    const group = groups.find((g: { isDefault: boolean }) => g.isDefault);
    const usNumber = group.phoneNumbers[0].number as string;

    // Before the group has a UK number, a UK recipient is texted from the US one: a conversation.
    const sticky = '+447400100001';
    await send([sticky]);
    assert.equal((await fromOf([sticky])).get(sticky), usNumber);

    const gbNumber = '+447400999001';
    const id = newId();
    await insertPhoneNumber(svc.db, a.accountId, {
      id,
      number: gbNumber,
      country: 'GB',
      type: 'mobile',
      provider: 'simulator',
      throughputMps: 10,
      channels: {},
      supportedDestinations: ['GB'],
      by: { id: 'test' },
    });
    await addNumberToGroup(svc.db, a.accountId, group.id, id);

    const uk = ['+447400100002', '+447400100003', '+447400100004', '+447400100005'];
    const us = ['+12025550181', '+12025550182', '+12025550183', '+12025550184'];
    await send([sticky, ...uk, ...us]);
    const from = await fromOf([sticky, ...uk, ...us]);
    for (const m of uk) assert.equal(from.get(m), gbNumber, m);
    for (const m of us) assert.equal(from.get(m), usNumber, m);
    // The recipient who already talks with the US number keeps it.
    assert.equal(from.get(sticky), usNumber);
  });
});
