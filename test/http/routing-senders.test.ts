import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addNumberToGroup } from '../../src/db/queries/groups.ts';
import { insertPhoneNumber } from '../../src/db/queries/phone-numbers.ts';
import { channelsFor } from '../../src/domain/numbers/channels.ts';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
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
      channels: channelsFor(['sms']),
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

  it('a workflow step picks its sender by the same rule: suitable for the country, sticky conversation kept', async () => {
    const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/groups`, { auth: a.auth });
    assert.equal(res.statusCode, 200, res.body);
    const group = body(res).data.find((g: { isDefault: boolean }) => g.isDefault);
    const numbers = new Map<string, string>(
      group.phoneNumbers.map((n: { number: string; country: string }) => [n.country, n.number]),
    );
    assert.ok(
      numbers.get('US') && numbers.get('GB'),
      'the first test left a US and a GB number in the group',
    );

    const wf = body(
      await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/workflows`, {
        auth: a.auth,
        json: {
          name: 'Welcome',
          versions: [
            {
              activate: true,
              definition: {
                nodes: [
                  { id: 't', type: { id: 'trigger.manual' } },
                  { id: 'm', type: { id: 'action.send-message' }, config: { message: 'Welcome' } },
                ],
                edges: [{ source: 't', target: 'm' }],
              },
            },
          ],
        },
      }),
    ).data;
    const contactOf = async (mobile: string) => {
      const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
        auth: a.auth,
        json: { mobile },
      });
      if (res.statusCode === 201) return body(res).data[0].id as string;
      const found = body(
        await call(
          svc.api,
          'GET',
          `/v1/accounts/${a.accountId}/contacts?mobile=${encodeURIComponent(mobile)}`,
          {
            auth: a.auth,
          },
        ),
      ).data;
      return found[0].id as string;
    };
    // '+447400100001' talks with the US number since the first test; the rest are new.
    const uk = ['+447400100001', '+447400200001', '+447400200002', '+447400200003', '+447400200004'];
    const us = ['+12025550281', '+12025550282', '+12025550283', '+12025550284'];
    for (const mobile of [...uk, ...us]) {
      const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/workflows/${wf.id}/enrollments`, {
        auth: a.auth,
        json: { contactId: await contactOf(mobile) },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    while ((await runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable })) > 0);
    const { rows } = await svc.db.query<{ to_number: string; from_number: string }>(
      `SELECT to_number, from_number FROM messages
       WHERE account_id = $1 AND outgoing AND body = 'Welcome' AND to_number = ANY($2::text[])`,
      [a.accountId, [...uk, ...us]],
    );
    const from = new Map(rows.map((r) => [r.to_number, r.from_number]));
    assert.equal(from.size, uk.length + us.length);
    assert.equal(from.get(uk[0]), numbers.get('US'), 'the sticky conversation wins');
    for (const m of uk.slice(1)) assert.equal(from.get(m), numbers.get('GB'), m);
    for (const m of us) assert.equal(from.get(m), numbers.get('US'), m);
  });
});
