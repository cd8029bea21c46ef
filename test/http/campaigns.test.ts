import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('campaigns', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const campaigns = (acc: TestAccount, rest = '') => `${base(acc)}/campaigns${rest}`;
  const quick = (acc: TestAccount, json: object) =>
    call(svc.api, 'POST', `${base(acc)}/quickcampaigns`, { auth: acc.auth, json });
  const defaultGroup = async (acc: TestAccount) => {
    const res = await call(svc.api, 'GET', `${base(acc)}/groups`, { auth: acc.auth });
    return (body(res).data as { id: string; isDefault: boolean }[]).find((g) => g.isDefault)?.id as string;
  };
  const listWithMembers = async (acc: TestAccount, n: number) => {
    const list = body(
      await call(svc.api, 'POST', `${base(acc)}/lists`, { auth: acc.auth, json: { name: `L${seq++}` } }),
    ).data;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
        auth: acc.auth,
        json: { mobile: `+1201${String(6_000_000 + seq++).padStart(7, '0')}`, firstName: `F${i}` },
      });
      assert.equal(res.statusCode, 201, res.body);
      ids.push(body(res).data[0].id);
    }
    if (n > 0) {
      const add = await call(svc.api, 'POST', `${base(acc)}/lists/${list.id}/contacts`, {
        auth: acc.auth,
        json: { contactIds: ids },
      });
      assert.ok(add.statusCode < 300, add.body);
    }
    return list.id as string;
  };
  const newCampaign = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', campaigns(acc), {
      auth: acc.auth,
      json: { name: `Campaign ${seq++}`, template: 'Hello {{{firstName}}}', ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const campaignMessages = async (acc: TestAccount, campaignId: string) =>
    body(
      await call(svc.api, 'GET', `${base(acc)}/messages?campaignId=${campaignId}&limit=100`, {
        auth: acc.auth,
      }),
    );

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/quickcampaigns', () => {
    it('sends now to the list and answers the campaign and its queued job; messages carry the campaign id', async () => {
      const listId = await listWithMembers(a, 2);
      const groupId = await defaultGroup(a);
      const res = await quick(a, {
        name: 'Spring sale',
        groupId,
        listId,
        message: { message: 'Hi {{{firstName}}}' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const { campaign, job } = body(res).data;
      assert.equal(campaign.name, 'Spring sale');
      assert.equal(campaign.trigger.code, 'M');
      assert.equal(campaign.status, 'sent');
      assert.equal(campaign.nextExecution, undefined);
      assert.equal(campaign.filters.list.id, listId);
      assert.equal(campaign.filters.list.size, 2);
      assert.deepEqual(campaign.phoneNumberFilter, { group: { id: groupId } });
      assert.equal(campaign.template, 'Hi {{{firstName}}}');
      assert.equal(job.submitted, 2);
      assert.equal(job.queued, 2);
      assert.equal(job.failures, 0);
      assert.ok(job.price > 0);
      assert.equal(campaign.lastJob.id, job.id);
      const msgs = await campaignMessages(a, campaign.id);
      assert.equal(msgs.data.length, 2);
      for (const m of msgs.data) {
        assert.equal(m.campaignId, campaign.id);
        assert.equal(m.jobId, job.id);
      }
      assert.deepEqual(msgs.data.map((m: { message: string }) => m.message).sort(), ['Hi F0', 'Hi F1']);
    });

    it('sends now when sendAt is in the past', async () => {
      const listId = await listWithMembers(a, 1);
      const res = await quick(a, {
        name: 'Past',
        groupId: await defaultGroup(a),
        listId,
        message: { message: 'now' },
        sendAt: new Date(Date.now() - 60_000).toISOString(),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.job.queued, 1);
      assert.equal(body(res).data.campaign.trigger.code, 'M');
    });

    it('schedules a future sendAt and the scheduler sends it when due', async () => {
      const listId = await listWithMembers(a, 2);
      // An hour ahead, however slowly the request is made; the test makes it due below.
      const sendAt = new Date(Date.now() + 3_600_000).toISOString();
      const res = await quick(a, {
        name: 'Later',
        groupId: await defaultGroup(a),
        listId,
        message: { message: 'later on' },
        sendAt,
      });
      assert.equal(res.statusCode, 200, res.body);
      const { campaign, job } = body(res).data;
      assert.equal(job, undefined);
      assert.equal(campaign.status, 'scheduled');
      assert.equal(campaign.trigger.code, 'S');
      assert.equal(campaign.nextExecution, sendAt);
      assert.equal(campaign.lastJob, undefined);
      assert.equal((await campaignMessages(a, campaign.id)).data.length, 0);

      // Its time comes (as an hour passing would bring it).
      await svc.db.query('UPDATE campaigns SET next_execution = now() WHERE account_id = $1 AND id = $2', [
        a.accountId,
        campaign.id,
      ]);
      svc.startWorkers();
      const done = await eventually(async () => {
        const c = body(await call(svc.api, 'GET', campaigns(a, `/${campaign.id}`), { auth: a.auth })).data;
        return c.lastJob ? c : undefined;
      });
      assert.equal(done.status, 'sent');
      assert.equal(done.nextExecution, undefined);
      assert.equal(done.lastJob.submitted, 2);
      const msgs = await campaignMessages(a, campaign.id);
      assert.equal(msgs.data.length, 2);
      assert.ok(msgs.data.every((m: { jobId: string }) => m.jobId === done.lastJob.id));
    });

    it('runs a recurring (cron) campaign on every firing until it is paused', async () => {
      const listId = await listWithMembers(a, 1);
      const created = await call(svc.api, 'POST', campaigns(a), {
        auth: a.auth,
        json: {
          name: 'Every minute',
          template: 'tick',
          trigger: { code: 'S' },
          filters: { list: { id: listId } },
          schedule: { frequency: 'OD', timezone: 'Europe/Stockholm', cron: '* * * * *' },
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const campaign = body(created).data;
      assert.ok(Date.parse(campaign.nextExecution) - Date.now() <= 60_000, 'first run at the next firing');
      svc.startWorkers();
      // A schedule fires at most once a minute (a sub-minute one is 400): the minute passes here.
      const firingNow = () =>
        svc.db.query('UPDATE campaigns SET next_execution = now() WHERE account_id = $1 AND id = $2', [
          a.accountId,
          campaign.id,
        ]);
      for (const n of [1, 2]) {
        await firingNow();
        await eventually(async () => (await campaignMessages(a, campaign.id)).data.length >= n);
        // The run is over (its next firing is set) before the minute passes again.
        await eventually(
          async () =>
            (
              await svc.db.query(
                `SELECT 1 FROM campaigns WHERE account_id = $1 AND id = $2
                    AND run_started_at IS NULL AND claimed_until IS NULL AND next_execution > now()`,
                [a.accountId, campaign.id],
              )
            ).rows.length > 0,
        );
      }
      const paused = await call(svc.api, 'PUT', campaigns(a, `/${campaign.id}`), {
        auth: a.auth,
        json: { paused: true },
      });
      assert.equal(paused.statusCode, 200);
      const jobs = new Set(
        (await campaignMessages(a, campaign.id)).data.map((m: { jobId: string }) => m.jobId),
      );
      assert.ok(jobs.size >= 2, 'each firing is its own job');
      const after = body(await call(svc.api, 'GET', campaigns(a, `/${campaign.id}`), { auth: a.auth })).data;
      assert.ok(after.nextExecution, 'a recurring campaign keeps a next run');
    });

    it('rejects an empty message with 400 and creates nothing', async () => {
      const listId = await listWithMembers(a, 1);
      const groupId = await defaultGroup(a);
      for (const message of ['', '   ']) {
        const res = await quick(a, { name: 'Empty', groupId, listId, message: { message } });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(body(res).success, false);
      }
      const list = body(await call(svc.api, 'GET', campaigns(a, '?name=Empty'), { auth: a.auth }));
      assert.equal(list.pagination.totalCount, 0);
    });

    it('rejects a missing name, list or group with 400 VAL-001', async () => {
      const res = await quick(a, { name: 'x', message: { message: 'hi' } });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it("answers 404 LIST-001 for an unknown or another account's list and 404 GRP-001 for such a group", async () => {
      const groupId = await defaultGroup(a);
      const listId = await listWithMembers(a, 1);
      for (const l of [NOT_THERE, 'nope', await listWithMembers(b, 1)]) {
        const res = await quick(a, { name: 'x', groupId, listId: l, message: { message: 'hi' } });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(body(res).error.code, 'LIST-001');
      }
      for (const g of [NOT_THERE, await defaultGroup(b)]) {
        const res = await quick(a, { name: 'x', groupId: g, listId, message: { message: 'hi' } });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(body(res).error.code, 'GRP-001');
      }
    });

    it('answers 402 ACCT-002 when the balance cannot cover the send, and keeps no campaign', async () => {
      const poor = await svc.newAccount({ balance: 0 });
      const res = await quick(poor, {
        name: 'Broke',
        groupId: await defaultGroup(poor),
        listId: await listWithMembers(poor, 1),
        message: { message: 'hi' },
      });
      assert.equal(res.statusCode, 402, res.body);
      assert.equal(body(res).error.code, 'ACCT-002');
      const list = body(await call(svc.api, 'GET', campaigns(poor), { auth: poor.auth }));
      assert.equal(list.pagination.totalCount, 0);
    });

    it("answers 401 without a token and 403 for another account's path", async () => {
      const json = { name: 'x', groupId: NOT_THERE, listId: NOT_THERE, message: { message: 'hi' } };
      const anon = await call(svc.api, 'POST', `${base(a)}/quickcampaigns`, { json });
      assert.equal(anon.statusCode, 401);
      const other = await call(svc.api, 'POST', `${base(b)}/quickcampaigns`, { auth: a.auth, json });
      assert.equal(other.statusCode, 403);
    });
  });

  describe('POST /v1/accounts/:accountId/campaigns', () => {
    it('creates a draft campaign (201) in the Campaign shape', async () => {
      const listId = await listWithMembers(a, 1);
      const c = await newCampaign(a, {
        name: 'Draft',
        description: 'About it',
        filters: { list: { id: listId }, tags: [{ tag: 'vip', visible: true }] },
        trigger: { code: 'FU' },
        reporting: { when: 'NoReport' },
        schedule: { frequency: 'OD', timezone: 'UTC' },
        media: [{ url: 'https://cdn.example.com/a.png' }],
        fieldMappings: [{ attribute: 'firstName', column: 'A', mandatory: true }],
      });
      assert.match(c.id, /^[0-9a-f-]{36}$/);
      assert.equal(c.description, 'About it');
      assert.equal(c.filters.list.id, listId);
      assert.deepEqual(c.filters.tags, [{ tag: 'vip', visible: true }]);
      assert.deepEqual(c.filters.attributes, []);
      assert.deepEqual(c.trigger, { code: 'FU', name: 'File upload' });
      assert.deepEqual(c.reporting, { when: 'NoReport' });
      assert.deepEqual(c.schedule, { frequency: 'OD', timezone: 'UTC' });
      assert.equal(c.media[0].url, 'https://cdn.example.com/a.png');
      assert.deepEqual(c.fieldMappings, [{ attribute: 'firstName', column: 'A', mandatory: true }]);
      assert.equal(c.status, 'draft');
      assert.equal(c.paused, undefined);
      assert.equal(c.lastJob, undefined);
      assert.equal(c.phoneNumberFilter, undefined);
      assert.equal(c.created.by.id, a.clientId);
      assert.match(c.created.at, /Z$/);
    });

    it('rejects an empty name, an unknown trigger code and an invalid schedule with 400', async () => {
      for (const json of [
        { name: '', template: 'x' },
        { name: 'x', trigger: { code: 'Q' } },
        { name: 'x', schedule: { cron: 'every day at nine' } },
        { name: 'x', schedule: { cron: '0 9 * * *', timezone: 'Mars/Olympus_Mons' } },
        { name: 'x', nextExecution: 'tomorrow' },
      ]) {
        const res = await call(svc.api, 'POST', campaigns(a), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it("answers 404 LIST-001 for another account's list", async () => {
      const res = await call(svc.api, 'POST', campaigns(a), {
        auth: a.auth,
        json: { name: 'x', filters: { list: { id: await listWithMembers(b, 0) } } },
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'LIST-001');
    });

    it("answers 401 without a token and 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'POST', campaigns(a), { json: { name: 'x' } })).statusCode, 401);
      assert.equal(
        (await call(svc.api, 'POST', campaigns(b), { auth: a.auth, json: { name: 'x' } })).statusCode,
        403,
      );
    });
  });

  describe('GET /v1/accounts/:accountId/campaigns', () => {
    it('lists newest first with pagination and filters by partial, case-insensitive name', async () => {
      const acc = await svc.newAccount();
      const one = await newCampaign(acc, { name: 'Autumn Promo' });
      const two = await newCampaign(acc, { name: 'winter promo' });
      await newCampaign(acc, { name: '100%_off' });
      const all = body(await call(svc.api, 'GET', campaigns(acc, '?limit=2'), { auth: acc.auth }));
      assert.equal(all.data.length, 2);
      assert.deepEqual(all.pagination, { limit: 2, offset: 0, hasNext: true, totalCount: 3 });
      const promo = body(await call(svc.api, 'GET', campaigns(acc, '?name=PROMO'), { auth: acc.auth }));
      assert.deepEqual(
        promo.data.map((c: { id: string }) => c.id),
        [two.id, one.id],
      );
      const literal = body(await call(svc.api, 'GET', campaigns(acc, '?name=%25_'), { auth: acc.auth }));
      assert.equal(literal.pagination.totalCount, 1);
      assert.equal(literal.data[0].name, '100%_off');
    });

    it("never shows another account's campaigns", async () => {
      const mine = await newCampaign(b, { name: 'B only' });
      const list = body(await call(svc.api, 'GET', campaigns(a, '?limit=100'), { auth: a.auth }));
      assert.ok(!list.data.some((c: { id: string }) => c.id === mine.id));
    });

    it('rejects limit=0, limit=101 and a negative offset with 400 VAL-001', async () => {
      for (const q of ['?limit=0', '?limit=101', '?offset=-1']) {
        const res = await call(svc.api, 'GET', campaigns(a, q), { auth: a.auth });
        assert.equal(res.statusCode, 400, q);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it("answers 401 without a token and 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'GET', campaigns(a))).statusCode, 401);
      assert.equal((await call(svc.api, 'GET', campaigns(b), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/campaigns/:campaignId', () => {
    it('answers the campaign', async () => {
      const c = await newCampaign(a, { name: 'Fetch me' });
      const res = await call(svc.api, 'GET', campaigns(a, `/${c.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data, c);
    });

    it("answers 404 CAMP-001 for another account's campaign, an unknown id and a non-id", async () => {
      const theirs = await newCampaign(b);
      for (const id of [theirs.id, NOT_THERE, 'not-an-id']) {
        const res = await call(svc.api, 'GET', campaigns(a, `/${id}`), { auth: a.auth });
        assert.equal(res.statusCode, 404, id);
        assert.equal(body(res).error.code, 'CAMP-001');
      }
    });

    it('answers 401 without a token', async () => {
      assert.equal((await call(svc.api, 'GET', campaigns(a, `/${NOT_THERE}`))).statusCode, 401);
    });
  });

  describe('PUT /v1/accounts/:accountId/campaigns/:campaignId', () => {
    it('updates the given fields only', async () => {
      const listId = await listWithMembers(a, 1);
      const c = await newCampaign(a, {
        name: 'Before',
        description: 'keep me',
        filters: { list: { id: listId }, tags: [{ tag: 'x' }] },
      });
      const res = await call(svc.api, 'PUT', campaigns(a, `/${c.id}`), {
        auth: a.auth,
        json: {
          name: 'After',
          trigger: { code: 'S' },
          template: 'New text',
          reporting: { when: 'NoReport' },
          filters: { attributes: [{ attribute: 'plan', comparator: '=', value: ['gold'] }] },
          phoneNumberFilter: { group: { id: await defaultGroup(a) } },
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const u = body(res).data;
      assert.equal(u.name, 'After');
      assert.equal(u.description, 'keep me');
      assert.equal(u.template, 'New text');
      assert.deepEqual(u.trigger, { code: 'S', name: 'Scheduled' });
      assert.deepEqual(u.reporting, { when: 'NoReport' });
      assert.equal(u.filters.list.id, listId);
      assert.deepEqual(u.filters.tags, [{ tag: 'x' }]);
      assert.deepEqual(u.filters.attributes, [{ attribute: 'plan', comparator: '=', value: ['gold'] }]);
      assert.equal(u.phoneNumberFilter.group.id, await defaultGroup(a));
      assert.equal(u.created.at, c.created.at);
      assert.ok(u.updated.at >= c.updated.at);
      const cleared = body(
        await call(svc.api, 'PUT', campaigns(a, `/${c.id}`), {
          auth: a.auth,
          json: { description: null, filters: { list: null } },
        }),
      ).data;
      assert.equal(cleared.description, undefined);
      assert.equal(cleared.filters.list, undefined);
      assert.equal(cleared.name, 'After');
    });

    it('pauses and resumes a scheduled campaign', async () => {
      const at = new Date(Date.now() + 3_600_000).toISOString();
      const c = await newCampaign(a, { nextExecution: at });
      assert.equal(c.status, 'scheduled');
      assert.equal(c.nextExecution, at);
      const paused = body(
        await call(svc.api, 'PUT', campaigns(a, `/${c.id}`), { auth: a.auth, json: { paused: true } }),
      ).data;
      assert.equal(paused.status, 'paused');
      assert.match(paused.paused, /Z$/);
      const resumed = body(
        await call(svc.api, 'PUT', campaigns(a, `/${c.id}`), { auth: a.auth, json: { paused: false } }),
      ).data;
      assert.equal(resumed.paused, undefined);
      assert.equal(resumed.status, 'scheduled');
    });

    it('rejects an invalid body with 400 VAL-001', async () => {
      const c = await newCampaign(a);
      for (const json of [
        { name: '' },
        { trigger: { code: 'X' } },
        { template: { text: 'x' } },
        { media: [{ url: 'ftp://example.com/a.png' }] },
        { filters: { list: {} } },
      ]) {
        const res = await call(svc.api, 'PUT', campaigns(a, `/${c.id}`), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it("answers 404 CAMP-001 for another account's campaign and leaves it unchanged", async () => {
      const theirs = await newCampaign(b, { name: 'Theirs' });
      for (const id of [theirs.id, NOT_THERE, 'x']) {
        const res = await call(svc.api, 'PUT', campaigns(a, `/${id}`), {
          auth: a.auth,
          json: { name: 'Mine' },
        });
        assert.equal(res.statusCode, 404);
        assert.equal(body(res).error.code, 'CAMP-001');
      }
      const still = body(await call(svc.api, 'GET', campaigns(b, `/${theirs.id}`), { auth: b.auth })).data;
      assert.equal(still.name, 'Theirs');
    });

    it('answers 401 without a token', async () => {
      const res = await call(svc.api, 'PUT', campaigns(a, `/${NOT_THERE}`), { json: { name: 'x' } });
      assert.equal(res.statusCode, 401);
    });
  });

  describe('DELETE /v1/accounts/:accountId/campaigns/:campaignId', () => {
    it('deletes the campaign', async () => {
      const c = await newCampaign(a);
      const res = await call(svc.api, 'DELETE', campaigns(a, `/${c.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res), { success: true });
      assert.equal((await call(svc.api, 'GET', campaigns(a, `/${c.id}`), { auth: a.auth })).statusCode, 404);
    });

    it("answers 404 CAMP-001 for another account's campaign and keeps it", async () => {
      const theirs = await newCampaign(b);
      for (const id of [theirs.id, NOT_THERE, 'x']) {
        const res = await call(svc.api, 'DELETE', campaigns(a, `/${id}`), { auth: a.auth });
        assert.equal(res.statusCode, 404);
        assert.equal(body(res).error.code, 'CAMP-001');
      }
      assert.equal(
        (await call(svc.api, 'GET', campaigns(b, `/${theirs.id}`), { auth: b.auth })).statusCode,
        200,
      );
    });

    it("answers 401 without a token and 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'DELETE', campaigns(a, `/${NOT_THERE}`))).statusCode, 401);
      assert.equal(
        (await call(svc.api, 'DELETE', campaigns(b, `/${NOT_THERE}`), { auth: a.auth })).statusCode,
        403,
      );
    });
  });
});
