import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDueCampaigns } from '../../src/domain/campaigns/run-due-campaigns.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/*
 * A client generated from the published description creates a campaign without a cast: its
 * CampaignRequest has no `name`, and its `filters` are `tags` as strings and `contacts` as ids.
 */
describe('a campaign created in the published request form', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const url = (acc: TestAccount, p = '') => `/v1/accounts/${acc.accountId}/campaigns${p}`;
  const newContact = async (acc: TestAccount, mobile: string, tags: string[] = []) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/contacts`, {
      auth: acc.auth,
      json: { mobile, firstName: 'Ada', tags },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0].id as string;
  };

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
    b = await svc.newAccount({ balance: 100 });
  });
  after(() => svc.close());

  it('takes no name (named after its creation time) and the published filters; runs to both', async () => {
    const tagged = await newContact(a, '+12015550711', ['vip']);
    const named = await newContact(a, '+12015550712');
    await newContact(a, '+12015550713', ['other']);
    const res = await call(svc.api, 'POST', url(a), {
      auth: a.auth,
      json: {
        template: 'Hi {{{firstName}}}',
        trigger: { code: 'M' },
        filters: { tags: ['vip'], contacts: [named] },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const c = body(res).data;
    assert.match(c.name, /^Campaign \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.deepEqual(c.filters.tags, [{ tag: 'vip', visible: true }]);
    assert.deepEqual(c.filters.contacts, [named]);
    const got = body(await call(svc.api, 'GET', url(a, `/${c.id}`), { auth: a.auth })).data;
    assert.deepEqual(got.filters.contacts, [named]);
    // Run it now: the tagged contact and the named one receive it, the other does not.
    const run = await call(svc.api, 'PUT', url(a, `/${c.id}`), {
      auth: a.auth,
      json: { nextExecution: new Date(Date.now() - 1000).toISOString() },
    });
    assert.equal(run.statusCode, 200, run.body);
    while ((await runDueCampaigns(svc.db, 10, false, svc.ctx.log, svc.ctx.config)) > 0);
    const ms = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages?limit=10`, { auth: a.auth }),
    ).data as { contact?: { id: string } }[];
    const to = ms.map((m) => m.contact?.id ?? '').sort();
    assert.deepEqual(to, [named, tagged].sort());
  });

  it("refuses another account's contact (404 CONT-002) and a malformed id (400 VAL-001)", async () => {
    const theirs = await newContact(b, '+12015550714');
    const other = await call(svc.api, 'POST', url(a), {
      auth: a.auth,
      json: { template: 'Hi', filters: { contacts: [theirs] } },
    });
    assert.equal(other.statusCode, 404, other.body);
    assert.equal(body(other).error.code, 'CONT-002');
    const bad = await call(svc.api, 'POST', url(a), {
      auth: a.auth,
      json: { template: 'Hi', filters: { contacts: ['not-an-id'] } },
    });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(body(bad).error.code, 'VAL-001');
    const all = await call(svc.api, 'POST', url(a), {
      auth: a.auth,
      json: { template: 'Hi', filters: { all: true, contacts: [await newContact(a, '+12015550715')] } },
    });
    assert.equal(all.statusCode, 400, all.body);
  });
});
