import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { groupSenderPool } from '../../src/domain/numbers/group-sender-pool.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const UNKNOWN = '01900000-0000-7000-8000-000000000000';

const HOURS = {
  active: true,
  timezone: 'America/New_York',
  times: {
    mon: [
      { start: { hour: 9, minute: 0 }, end: { hour: 12, minute: 30 } },
      { start: { hour: 13, minute: 30 }, end: { hour: 17, minute: 0 } },
    ],
    sat: [{ start: { hour: 10, minute: 0 }, end: { hour: 14, minute: 0 } }],
  },
};

describe('groups', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const take = async (acc: TestAccount, number: string) =>
    body(await call(svc.api, 'POST', `${base(acc)}/phonenumbers`, { auth: acc.auth, json: { number } })).data;
  const create = (acc: TestAccount, json: unknown) =>
    call(svc.api, 'POST', `${base(acc)}/groups`, { auth: acc.auth, json });
  const put = (acc: TestAccount, id: string, json: unknown) =>
    call(svc.api, 'PUT', `${base(acc)}/groups/${id}`, { auth: acc.auth, json });
  const get = (acc: TestAccount, id: string) =>
    call(svc.api, 'GET', `${base(acc)}/groups/${id}`, { auth: acc.auth });
  const groupsOf = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `${base(acc)}/groups?limit=100`, { auth: acc.auth })).data as {
      id: string;
      name: string;
      isDefault: boolean;
      phoneNumbers: { id: string; number: string }[];
    }[];
  const defaultOf = async (acc: TestAccount) => (await groupsOf(acc)).find((g) => g.isDefault)!;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/groups', () => {
    it('creates a group with numbers named by id and by number, answering 201 with the Group shape', async () => {
      const n1 = await take(a, '+14155550110');
      const n2 = await take(a, '+14155550111');
      const res = await create(a, {
        name: 'Support',
        phoneNumbers: [{ id: n1.id }, '+1 415 555 0111'],
        tags: ['vip', 'west'],
        notifications: [{ integration: 'email', destination: { id: 'd1', name: 'Inbox' } }],
        officeHours: HOURS,
        useSharedPool: false,
      });
      assert.equal(res.statusCode, 201);
      const g = body(res).data;
      assert.equal(g.name, 'Support');
      assert.equal(g.isDefault, false);
      assert.equal(g.useSharedPool, false);
      assert.deepEqual(g.tags, ['vip', 'west']);
      assert.deepEqual(g.notifications, [{ integration: 'email', destination: { id: 'd1', name: 'Inbox' } }]);
      assert.deepEqual(g.officeHours, HOURS);
      assert.deepEqual(g.users, []);
      assert.deepEqual(
        g.phoneNumbers.map((p: { id: string }) => p.id),
        [n1.id, n2.id],
      );
      for (const p of g.phoneNumbers) {
        assert.ok(p.groups.some((r: { id: string; name: string }) => r.id === g.id && r.name === 'Support'));
        assert.equal(p.provider, 'simulator');
      }
      assert.match(g.created.at, /Z$/);
      assert.equal(g.created.by.id, a.clientId);
    });

    it('derives one phonenumber Sender per number', async () => {
      const n = await take(a, '+14155550112');
      const g = body(await create(a, { name: 'Senders', phoneNumbers: [n.number] })).data;
      assert.equal(g.senders.length, 1);
      const s = g.senders[0];
      assert.equal(s.id, n.id);
      assert.equal(s.type, 'phonenumber');
      assert.equal(s.subType, 'local');
      assert.equal(s.status, 'active');
      assert.equal(s.identifier, '+14155550112');
      assert.deepEqual(s.channels, n.channels);
      assert.deepEqual(s.created, n.created);
      assert.ok(s.groups.some((r: { id: string }) => r.id === g.id));
    });

    it('accepts the published spelling phoneNumbers?', async () => {
      const n = await take(a, '+14155550113');
      const res = await create(a, { name: 'Published', 'phoneNumbers?': [{ id: n.id }] });
      assert.equal(res.statusCode, 201);
      assert.deepEqual(
        body(res).data.phoneNumbers.map((p: { id: string }) => p.id),
        [n.id],
      );
    });

    it('links users (console users of the account) and parses their mobile as contacts are', async () => {
      const invited = await call(svc.api, 'POST', `${base(a)}/users`, {
        auth: a.auth,
        json: { email: 'ann@example.com', role: 'Administrator' },
      });
      const token = body(invited).data.link.split('/accept/')[1];
      const joined = await call(svc.api, 'POST', `/console/api/invitations/${token}/accept`, {
        json: { password: 'a long enough password', firstName: 'Ann' },
      });
      assert.equal(joined.statusCode, 200, joined.body);
      const res = await create(a, {
        name: 'With users',
        users: [
          {
            email: 'ann@example.com',
            firstName: 'Ann',
            role: 'Administrator',
            mobile: { number: '(415) 555-2671', country: 'US' },
          },
        ],
      });
      assert.equal(res.statusCode, 201);
      const [u] = body(res).data.users;
      assert.equal(u.id, body(joined).data.user.id);
      assert.equal(u.email, 'ann@example.com');
      assert.equal(u.role, 'Administrator');
      assert.deepEqual(u.mobile, {
        country: 'US',
        number: '+14155552671',
        valid: true,
        lineType: 'fixedOrMobile',
      });
    });

    it('with isDefault makes it the one default group', async () => {
      const acc = await svc.newAccount();
      const old = await defaultOf(acc);
      const res = await create(acc, { name: 'New default', isDefault: true });
      assert.equal(res.statusCode, 201);
      assert.equal(body(res).data.isDefault, true);
      const all = await groupsOf(acc);
      assert.deepEqual(
        all.filter((g) => g.isDefault).map((g) => g.id),
        [body(res).data.id],
      );
      assert.equal(all.find((g) => g.id === old.id)?.isDefault, false);
    });

    it('rejects an unknown time zone and a range that ends before it starts with 400 GRP-004', async () => {
      for (const officeHours of [
        { ...HOURS, timezone: 'Mars/Olympus_Mons' },
        { ...HOURS, times: { tue: [{ start: { hour: 17, minute: 0 }, end: { hour: 9, minute: 0 } }] } },
      ]) {
        const res = await create(a, { name: 'Bad hours', officeHours });
        assert.equal(res.statusCode, 400);
        assert.equal(body(res).error.code, 'GRP-004');
      }
    });

    it('rejects a missing name, an out-of-range hour or minute and a bad user email with 400', async () => {
      for (const json of [
        { tags: ['x'] },
        { name: '' },
        {
          name: 'x',
          officeHours: {
            ...HOURS,
            times: { mon: [{ start: { hour: 24, minute: 0 }, end: { hour: 1, minute: 0 } }] },
          },
        },
        {
          name: 'x',
          officeHours: {
            ...HOURS,
            times: { mon: [{ start: { hour: 9, minute: 60 }, end: { hour: 10, minute: 0 } }] },
          },
        },
        { name: 'x', officeHours: { active: true, times: {} } },
        { name: 'x', users: [{ email: 'not-an-email' }] },
      ]) {
        const res = await create(a, json);
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it('rejects an invalid user mobile with 400 CONT-001', async () => {
      const res = await create(a, {
        name: 'x',
        users: [{ email: 'a@example.com', mobile: { number: '123' } }],
      });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'CONT-001');
    });

    it("answers 404 NUM-001 for another account's number (by id or by number), creating nothing", async () => {
      const theirs = (await defaultOf(b)).phoneNumbers[0];
      const count = (await groupsOf(a)).length;
      for (const ref of [{ id: theirs.id }, theirs.number, { id: 'not-a-uuid' }]) {
        const res = await create(a, { name: 'Stolen', phoneNumbers: [ref] });
        assert.equal(res.statusCode, 404, JSON.stringify(ref));
        assert.equal(body(res).error.code, 'NUM-001');
      }
      assert.equal((await groupsOf(a)).length, count);
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal(
        (await call(svc.api, 'POST', `${base(a)}/groups`, { json: { name: 'x' } })).statusCode,
        401,
      );
    });

    it("answers 403 for another account's path", async () => {
      const res = await call(svc.api, 'POST', `${base(b)}/groups`, { auth: a.auth, json: { name: 'x' } });
      assert.equal(res.statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/groups', () => {
    it('lists groups oldest first, default group first for a new account, with totalCount and paging', async () => {
      const acc = await svc.newAccount();
      await create(acc, { name: 'Second' });
      await create(acc, { name: 'Third' });
      const res = await call(svc.api, 'GET', `${base(acc)}/groups?limit=2`, { auth: acc.auth });
      assert.equal(res.statusCode, 200);
      const { data, pagination } = body(res);
      assert.deepEqual(pagination, { limit: 2, offset: 0, hasNext: true, totalCount: 3 });
      assert.equal(data[0].isDefault, true);
      assert.equal(data[1].name, 'Second');
      const rest = body(
        await call(svc.api, 'GET', `${base(acc)}/groups?limit=2&offset=2`, { auth: acc.auth }),
      );
      assert.deepEqual(
        rest.data.map((g: { name: string }) => g.name),
        ['Third'],
      );
      assert.equal(rest.pagination.hasNext, false);
    });

    it('rejects limit 101 with 400', async () => {
      assert.equal(
        (await call(svc.api, 'GET', `${base(a)}/groups?limit=101`, { auth: a.auth })).statusCode,
        400,
      );
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'GET', `${base(a)}/groups`)).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'GET', `${base(b)}/groups`, { auth: a.auth })).statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/groups/:groupId', () => {
    it('answers the group with its numbers', async () => {
      const def = await defaultOf(a);
      const res = await get(a, def.id);
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.id, def.id);
      assert.equal(body(res).data.isDefault, true);
      assert.deepEqual(body(res).data.phoneNumbers, def.phoneNumbers);
    });

    it("answers 404 GRP-001 for another account's group, an unknown id and a non-UUID", async () => {
      const theirs = await defaultOf(b);
      for (const id of [theirs.id, UNKNOWN, 'default']) {
        const res = await get(a, id);
        assert.equal(res.statusCode, 404, id);
        assert.equal(body(res).error.code, 'GRP-001');
      }
    });

    it('rejects a call without a token with 401', async () => {
      const def = await defaultOf(a);
      assert.equal((await call(svc.api, 'GET', `${base(a)}/groups/${def.id}`)).statusCode, 401);
    });
  });

  describe('PUT /v1/accounts/:accountId/groups/:groupId', () => {
    it('renames and replaces the numbers, leaving absent fields as they were', async () => {
      const n1 = await take(a, '+16175550120');
      const n2 = await take(a, '+16175550121');
      const g = body(
        await create(a, { name: 'Boston', phoneNumbers: [n1.number], tags: ['east'], officeHours: HOURS }),
      ).data;
      const res = await put(a, g.id, { name: 'Boston office', phoneNumbers: [{ id: n2.id }] });
      assert.equal(res.statusCode, 200);
      const u = body(res).data;
      assert.equal(u.name, 'Boston office');
      assert.deepEqual(
        u.phoneNumbers.map((p: { id: string }) => p.id),
        [n2.id],
      );
      assert.deepEqual(u.tags, ['east']);
      assert.deepEqual(u.officeHours, HOURS);
      assert.deepEqual(u.created, g.created);
      const n1now = body(
        await call(svc.api, 'GET', `${base(a)}/phonenumbers/${n1.id}`, { auth: a.auth }),
      ).data;
      assert.ok(!n1now.groups.some((r: { id: string }) => r.id === g.id));
      assert.equal(n1now.status, 'active');
      const cleared = body(await put(a, g.id, { 'phoneNumbers?': [], officeHours: null })).data;
      assert.deepEqual(cleared.phoneNumbers, []);
      assert.equal(cleared.officeHours, undefined);
    });

    it('moves the default: the group becomes the one default and the old one loses it', async () => {
      const acc = await svc.newAccount();
      const old = await defaultOf(acc);
      const g = body(await create(acc, { name: 'Next' })).data;
      const res = await put(acc, g.id, { isDefault: true });
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.isDefault, true);
      const all = await groupsOf(acc);
      assert.deepEqual(
        all.filter((x) => x.isDefault).map((x) => x.id),
        [g.id],
      );
      assert.equal(all.find((x) => x.id === old.id)?.isDefault, false);
    });

    it('keeps exactly one default when two groups are made the default at once', async () => {
      const acc = await svc.newAccount();
      const g1 = body(await create(acc, { name: 'One' })).data;
      const g2 = body(await create(acc, { name: 'Two' })).data;
      const [r1, r2] = await Promise.all([
        put(acc, g1.id, { isDefault: true }),
        put(acc, g2.id, { isDefault: true }),
      ]);
      assert.equal(r1.statusCode, 200);
      assert.equal(r2.statusCode, 200);
      const defaults = (await groupsOf(acc)).filter((x) => x.isDefault);
      assert.equal(defaults.length, 1);
      assert.ok([g1.id, g2.id].includes(defaults[0].id));
    });

    it('refuses to un-default the default group with 409 GRP-005', async () => {
      const def = await defaultOf(a);
      const res = await put(a, def.id, { isDefault: false });
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'GRP-005');
      assert.equal((await defaultOf(a)).id, def.id);
    });

    it('sets useSharedPool and users (Ann joined the account in a test above)', async () => {
      const g = body(await create(a, { name: 'Pool' })).data;
      const res = await put(a, g.id, {
        useSharedPool: true,
        users: [{ email: 'ann@example.com' }],
      });
      assert.equal(body(res).data.useSharedPool, true);
      assert.equal(body(res).data.users[0].firstName, 'Ann');
    });

    it('rejects bad office hours and an empty name with 400', async () => {
      const def = await defaultOf(a);
      const tz = await put(a, def.id, { officeHours: { ...HOURS, timezone: 'Nowhere/Land' } });
      assert.equal(tz.statusCode, 400);
      assert.equal(body(tz).error.code, 'GRP-004');
      const name = await put(a, def.id, { name: '' });
      assert.equal(name.statusCode, 400);
      assert.equal(body(name).error.code, 'VAL-001');
    });

    it("answers 404 for another account's group, changing nothing", async () => {
      const theirs = await defaultOf(b);
      const res = await put(a, theirs.id, { name: 'Taken over' });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'GRP-001');
      assert.equal((await defaultOf(b)).name, theirs.name);
    });

    it("answers 404 NUM-001 when naming another account's number", async () => {
      const def = await defaultOf(a);
      const theirs = (await defaultOf(b)).phoneNumbers[0];
      const res = await put(a, def.id, { phoneNumbers: [theirs.number] });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'NUM-001');
    });

    it('rejects a call without a token with 401', async () => {
      const def = await defaultOf(a);
      assert.equal(
        (await call(svc.api, 'PUT', `${base(a)}/groups/${def.id}`, { json: { name: 'x' } })).statusCode,
        401,
      );
    });
  });

  describe('DELETE /v1/accounts/:accountId/groups/:groupId', () => {
    it('deletes a group; its numbers stay with the account', async () => {
      const n = await take(a, '+12065550130');
      const g = body(await create(a, { name: 'Temp', phoneNumbers: [n.number] })).data;
      const res = await call(svc.api, 'DELETE', `${base(a)}/groups/${g.id}`, { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res), { success: true });
      assert.equal((await get(a, g.id)).statusCode, 404);
      const still = body(
        await call(svc.api, 'GET', `${base(a)}/phonenumbers/${n.id}`, { auth: a.auth }),
      ).data;
      assert.equal(still.status, 'active');
      assert.ok(!still.groups.some((r: { id: string }) => r.id === g.id));
    });

    it('refuses to delete the default group with 409 GRP-002', async () => {
      const def = await defaultOf(a);
      const res = await call(svc.api, 'DELETE', `${base(a)}/groups/${def.id}`, { auth: a.auth });
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'GRP-002');
      assert.equal((await get(a, def.id)).statusCode, 200);
    });

    it("answers 404 for another account's group and a non-UUID id, deleting nothing", async () => {
      const acc = await svc.newAccount();
      const theirs = body(await create(acc, { name: 'Theirs' })).data;
      for (const id of [theirs.id, 'xyz']) {
        const res = await call(svc.api, 'DELETE', `${base(a)}/groups/${id}`, { auth: a.auth });
        assert.equal(res.statusCode, 404, id);
      }
      assert.equal((await get(acc, theirs.id)).statusCode, 200);
    });

    it('rejects a call without a token with 401', async () => {
      const def = await defaultOf(a);
      assert.equal((await call(svc.api, 'DELETE', `${base(a)}/groups/${def.id}`)).statusCode, 401);
    });
  });

  describe('groupSenderPool', () => {
    it('answers the default group and its active numbers when no group is named', async () => {
      const acc = await svc.newAccount();
      const def = await defaultOf(acc);
      const pool = await groupSenderPool(svc.db, acc.accountId);
      assert.equal(pool.group.id, def.id);
      assert.equal(pool.group.isDefault, true);
      assert.deepEqual(pool.numbers, [
        {
          id: def.phoneNumbers[0].id,
          number: def.phoneNumbers[0].number,
          provider: 'simulator',
          throughputMps: 75,
          country: 'US',
          destinations: ['US'],
        },
      ]);
    });

    it("answers a named group's numbers, without released ones", async () => {
      const acc = await svc.newAccount();
      const n1 = await take(acc, '+13035550140');
      const n2 = await take(acc, '+18335551014');
      const g = body(await create(acc, { name: 'Pool', phoneNumbers: [n1.number, n2.number] })).data;
      await call(svc.api, 'PUT', `${base(acc)}/phonenumbers/${n1.id}`, {
        auth: acc.auth,
        json: { throughput: 5 },
      });
      let pool = await groupSenderPool(svc.db, acc.accountId, g.id);
      assert.equal(pool.group.id, g.id);
      assert.deepEqual(pool.numbers, [
        {
          id: n1.id,
          number: '+13035550140',
          provider: 'simulator',
          throughputMps: 5,
          country: 'US',
          destinations: ['US'],
        },
        {
          id: n2.id,
          number: '+18335551014',
          provider: 'simulator',
          throughputMps: 150,
          country: 'US',
          destinations: ['US'],
        },
      ]);
      await call(svc.api, 'DELETE', `${base(acc)}/phonenumbers/${n1.id}`, { auth: acc.auth });
      pool = await groupSenderPool(svc.db, acc.accountId, g.id);
      assert.deepEqual(
        pool.numbers.map((n) => n.id),
        [n2.id],
      );
    });

    it('answers every active number of the account for a group using the shared pool', async () => {
      const acc = await svc.newAccount();
      const def = await defaultOf(acc);
      const extra = await take(acc, '+13035550141');
      const g = body(await create(acc, { name: 'Shared', useSharedPool: true })).data;
      const pool = await groupSenderPool(svc.db, acc.accountId, g.id);
      assert.equal(pool.group.useSharedPool, true);
      assert.deepEqual(
        pool.numbers.map((n) => n.id),
        [def.phoneNumbers[0].id, extra.id],
      );
    });

    it("fails with GRP-001 for an unknown group, another account's group and a non-UUID", async () => {
      const theirs = await defaultOf(b);
      for (const id of [UNKNOWN, theirs.id, 'nope']) {
        await assert.rejects(
          groupSenderPool(svc.db, a.accountId, id),
          (err: { code?: string }) => err.code === 'GRP-001',
        );
      }
    });
  });
});
