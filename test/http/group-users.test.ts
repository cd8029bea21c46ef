/**
 * A group's users are the account's console users: named by id or e-mail, shown in the
 * interface's User shape (`id`, `email`, `firstName`, `lastName`, `role`, `mobile`,
 * `tacAccepted`) as the person is now, with their role in the account; a person removed from the
 * account leaves its groups; nobody else (a stranger, another account's user, an open invitation)
 * can be made a group user.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const USER_KEYS = ['email', 'firstName', 'id', 'lastName', 'mobile', 'role', 'tacAccepted'];

describe('group users are the console users of the account', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let ann: string;
  let ben: string;
  let theirs: string;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const create = (acc: TestAccount, json: unknown) =>
    call(svc.api, 'POST', `${base(acc)}/groups`, { auth: acc.auth, json });
  const put = (acc: TestAccount, id: string, json: unknown) =>
    call(svc.api, 'PUT', `${base(acc)}/groups/${id}`, { auth: acc.auth, json });
  const get = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `${base(acc)}/groups/${id}`, { auth: acc.auth })).data;

  /** Invites `email` to `acc` with `role`; unless `accept` is false, the person accepts with a name. */
  async function member(
    acc: TestAccount,
    email: string,
    role: string,
    name: [string, string],
    accept = true,
  ) {
    const inv = await call(svc.api, 'POST', `${base(acc)}/users`, { auth: acc.auth, json: { email, role } });
    assert.equal(inv.statusCode, 201, inv.body);
    if (!accept) return '';
    const token = body(inv).data.link.split('/accept/')[1];
    const res = await call(svc.api, 'POST', `/console/api/invitations/${token}/accept`, {
      json: { password: 'a long enough password', firstName: name[0], lastName: name[1], acceptTerms: true },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data.user.id as string;
  }

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
    ann = await member(a, 'ann@example.com', 'Member', ['Ann', 'Arbor']);
    ben = await member(a, 'ben@example.com', 'Viewer', ['Ben', 'Nevis']);
    theirs = await member(b, 'cy@example.com', 'Administrator', ['Cy', 'Press']);
    await member(a, 'pending@example.com', 'Member', ['', ''], false);
  });
  after(() => svc.close());

  it('links users named by e-mail or id, showing each as the console user with their role in the account', async () => {
    const res = await create(a, {
      name: 'Support',
      users: [
        // The request's name, role and terms are the person's own: not taken from here.
        {
          email: 'ANN@example.com',
          firstName: 'Not',
          role: 'Administrator',
          mobile: { number: '(415) 555-2671', country: 'US' },
        },
        { id: ben },
      ],
    });
    assert.equal(res.statusCode, 201, res.body);
    const users = body(res).data.users;
    assert.equal(users.length, 2);
    assert.deepEqual(Object.keys(users[0]).sort(), USER_KEYS);
    assert.deepEqual(
      { ...users[0], tacAccepted: typeof users[0].tacAccepted },
      {
        id: ann,
        email: 'ann@example.com',
        firstName: 'Ann',
        lastName: 'Arbor',
        role: 'Member',
        mobile: { country: 'US', number: '+14155552671', valid: true, lineType: 'fixedOrMobile' },
        tacAccepted: 'string',
      },
    );
    assert.ok(!Number.isNaN(Date.parse(users[0].tacAccepted)));
    assert.deepEqual(
      [users[1].id, users[1].email, users[1].role, 'mobile' in users[1]],
      [ben, 'ben@example.com', 'Viewer', false],
    );
    // The same users in the list of groups and in the account's users.
    const list = body(await call(svc.api, 'GET', `${base(a)}/groups?limit=100`, { auth: a.auth })).data;
    assert.deepEqual(list.find((g: { id: string }) => g.id === body(res).data.id).users, users);
    const people = body(await call(svc.api, 'GET', `${base(a)}/users`, { auth: a.auth })).data;
    const annAsUser = people.find((p: { id: string }) => p.id === ann);
    assert.deepEqual(
      [annAsUser.email, annAsUser.firstName, annAsUser.lastName, annAsUser.role],
      [users[0].email, users[0].firstName, users[0].lastName, users[0].role],
    );
  });

  it('shows a role change at once, and drops a person removed from the account from its groups', async () => {
    const g = body(
      await create(a, { name: 'Roles', users: [{ email: 'ann@example.com' }, { email: 'ben@example.com' }] }),
    ).data;
    const promote = await call(svc.api, 'PUT', `${base(a)}/users/${ben}`, {
      auth: a.auth,
      json: { role: 'Administrator' },
    });
    assert.equal(promote.statusCode, 200, promote.body);
    assert.deepEqual(
      (await get(a, g.id)).users.map((u: { email: string; role: string }) => [u.email, u.role]),
      [
        ['ann@example.com', 'Member'],
        ['ben@example.com', 'Administrator'],
      ],
    );
    const removed = await call(svc.api, 'DELETE', `${base(a)}/users/${ann}`, { auth: a.auth });
    assert.equal(removed.statusCode, 200, removed.body);
    assert.deepEqual(
      (await get(a, g.id)).users.map((u: { id: string }) => u.id),
      [ben],
    );
    // Back in the account, Ann is not silently back in the group.
    ann = await member(a, 'ann@example.com', 'Member', ['Ann', 'Arbor']);
    assert.deepEqual(
      (await get(a, g.id)).users.map((u: { id: string }) => u.id),
      [ben],
    );
  });

  it('replaces the users on update (in the order given, a person named twice once), [] clears them', async () => {
    const g = body(await create(a, { name: 'Order' })).data;
    assert.deepEqual(g.users, []);
    const res = await put(a, g.id, {
      users: [{ id: ben }, { email: 'ann@example.com' }, { email: 'BEN@example.com' }],
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      body(res).data.users.map((u: { id: string }) => u.id),
      [ben, ann],
    );
    const kept = await put(a, g.id, { name: 'Order 2' });
    assert.equal(body(kept).data.users.length, 2, 'absent users: unchanged');
    const cleared = await put(a, g.id, { users: [] });
    assert.deepEqual(body(cleared).data.users, []);
  });

  it('answers 404 USER-005 for a stranger, an open invitation, or another account’s user, creating nothing', async () => {
    const before = body(await call(svc.api, 'GET', `${base(a)}/groups?limit=100`, { auth: a.auth })).data
      .length;
    for (const user of [
      { email: 'stranger@example.com' },
      { email: 'pending@example.com' },
      { email: 'cy@example.com' },
      { id: theirs },
      { id: '01900000-0000-7000-8000-000000000000' },
      { id: 'not-a-uuid' },
    ]) {
      const res = await create(a, { name: 'Nope', users: [{ email: 'ann@example.com' }, user] });
      assert.equal(res.statusCode, 404, `${JSON.stringify(user)}: ${res.body}`);
      assert.equal(body(res).error.code, 'USER-005');
    }
    const after = body(await call(svc.api, 'GET', `${base(a)}/groups?limit=100`, { auth: a.auth })).data
      .length;
    assert.equal(after, before);
  });

  it('changes nothing when an update names someone who is not a user of the account', async () => {
    const g = body(await create(a, { name: 'Stable', users: [{ id: ben }] })).data;
    const res = await put(a, g.id, { name: 'Renamed', users: [{ id: theirs }] });
    assert.equal(res.statusCode, 404, res.body);
    const now = await get(a, g.id);
    assert.deepEqual([now.name, now.users.map((u: { id: string }) => u.id)], ['Stable', [ben]]);
  });

  it('answers 400 for a user named by neither id nor e-mail, or by the id and e-mail of two people', async () => {
    for (const user of [
      { firstName: 'Ann' },
      { id: ann, email: 'ben@example.com' },
      { email: 'not-an-email' },
    ]) {
      const res = await create(a, { name: 'Bad', users: [user] });
      assert.equal(res.statusCode, 400, `${JSON.stringify(user)}: ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-001');
    }
    const mobile = await create(a, { name: 'Bad', users: [{ id: ann, mobile: { number: '123' } }] });
    assert.equal(mobile.statusCode, 400);
    assert.equal(body(mobile).error.code, 'CONT-001');
  });

  it('never shows another account’s group users, and refuses without a token', async () => {
    const g = body(await create(a, { name: 'Private', users: [{ id: ben }] })).data;
    const elsewhere = await call(svc.api, 'GET', `${base(b)}/groups/${g.id}`, { auth: b.auth });
    assert.equal(elsewhere.statusCode, 404);
    assert.ok(!elsewhere.body.includes('ben@example.com'));
    const crossed = await call(svc.api, 'GET', `${base(a)}/groups/${g.id}`, { auth: b.auth });
    assert.ok([403, 404].includes(crossed.statusCode), crossed.body);
    assert.equal((await call(svc.api, 'GET', `${base(a)}/groups/${g.id}`)).statusCode, 401);
  });
});
