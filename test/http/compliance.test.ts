import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '../../src/domain/auth/create-client.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('…/compliance/registrations: 10DLC brands and campaigns, toll-free verifications', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/compliance/registrations`;
  const post = (acc: TestAccount, json: object, auth = acc.auth) =>
    call(svc.api, 'POST', base(acc), { auth, json });

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  it('records a brand, a campaign under it with its numbers and caps, and a toll-free verification; changes and deletes', async () => {
    const [num] = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }),
    ).data;
    const brand = await post(a, {
      kind: '10dlc-brand',
      name: 'Rosa Bakery LLC',
      externalId: 'BXXXXXX',
      status: 'approved',
    });
    assert.equal(brand.statusCode, 201, brand.body);
    const brandId = body(brand).data.id;
    const campaign = await post(a, {
      kind: '10dlc-campaign',
      name: 'Weekly offers',
      parentId: brandId,
      externalId: 'CYYYYYY',
      status: 'pending',
      useCase: 'MARKETING',
      phoneNumberIds: [num.id],
      messagesPerSecond: 4,
      dailyCap: 2000,
    });
    assert.equal(campaign.statusCode, 201, campaign.body);
    const c = body(campaign).data;
    assert.deepEqual(c.phoneNumbers, [{ id: num.id, number: num.number }]);
    assert.equal(c.messagesPerSecond, 4);
    assert.equal(c.dailyCap, 2000);
    assert.equal(c.parentId, brandId);

    const tf = await post(a, { kind: 'toll-free-verification', name: 'TF 888', notes: 'ticket 42' });
    assert.equal(body(tf).data.status, 'draft');

    const put = await call(svc.api, 'PUT', `${base(a)}/${c.id}`, {
      auth: a.auth,
      json: { status: 'approved', dailyCap: null },
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(body(put).data.status, 'approved');
    assert.equal(body(put).data.dailyCap, undefined);
    assert.equal(body(put).data.messagesPerSecond, 4);

    const list = body(await call(svc.api, 'GET', `${base(a)}?kind=10dlc-campaign`, { auth: a.auth }));
    assert.deepEqual(
      list.data.map((r: { name: string }) => r.name),
      ['Weekly offers'],
    );
    assert.equal(list.pagination.totalCount, 1);

    const del = await call(svc.api, 'DELETE', `${base(a)}/${body(tf).data.id}`, { auth: a.auth });
    assert.equal(del.statusCode, 200, del.body);
    const gone = await call(svc.api, 'GET', `${base(a)}/${body(tf).data.id}`, { auth: a.auth });
    assert.equal(gone.statusCode, 404);
    assert.equal(body(gone).error.code, 'NUM-012');
  });

  it('refuses another account’s numbers, group, brand and records; bad kinds and statuses', async () => {
    const [theirs] = body(
      await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/phonenumbers`, { auth: b.auth }),
    ).data;
    const theirBrand = body(await post(b, { kind: '10dlc-brand', name: 'Theirs' })).data;
    for (const [json, status, code] of [
      [{ kind: '10dlc-campaign', name: 'x', phoneNumberIds: [theirs.id] }, 404, 'NUM-001'],
      [{ kind: '10dlc-campaign', name: 'x', phoneNumberIds: ['not-an-id'] }, 404, 'NUM-001'],
      [{ kind: '10dlc-campaign', name: 'x', groupId: theirs.id }, 404, 'GRP-001'],
      [{ kind: '10dlc-campaign', name: 'x', parentId: theirBrand.id }, 400, 'VAL-001'],
      [{ kind: '10dlc-brand', name: 'x', parentId: theirBrand.id }, 400, 'VAL-001'],
      [{ kind: 'short-code', name: 'x' }, 400, 'VAL-001'],
      [{ kind: '10dlc-brand', name: 'x', status: 'granted' }, 400, 'VAL-001'],
      [{ kind: '10dlc-brand', name: '   ' }, 400, 'VAL-001'],
      [{ kind: '10dlc-brand', name: 'x', messagesPerSecond: -1 }, 400, 'VAL-001'],
    ] as const) {
      const res = await post(a, json);
      assert.equal(res.statusCode, status, `${JSON.stringify(json)}: ${res.body}`);
      assert.equal(body(res).error.code, code);
    }
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await call(svc.api, method, `${base(a)}/${theirBrand.id}`, {
        auth: a.auth,
        json: method === 'PUT' ? { name: 'hijack' } : undefined,
      });
      assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
    }
    const cross = await call(svc.api, 'GET', base(b), { auth: a.auth });
    assert.equal(cross.statusCode, 403);
    assert.equal(
      body(await call(svc.api, 'GET', `${base(b)}/${theirBrand.id}`, { auth: b.auth })).data.name,
      'Theirs',
    );
  });

  it('needs numbers:write to record and numbers:read to list', async () => {
    const { client } = await createClient(svc.db, a.accountId, { scopes: ['messages:send'] });
    const token = await svc.ctx.tokens.issue(
      { id: client.id, name: client.name, accountId: a.accountId },
      client.scopes,
    );
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await call(svc.api, 'GET', base(a), { auth })).statusCode, 403);
    assert.equal((await post(a, { kind: '10dlc-brand', name: 'x' }, auth)).statusCode, 403);
  });
});
