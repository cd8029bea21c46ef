/**
 * Open invitations (issue 27): listed for the users page, revoked (the link stops working) and
 * sent again (a new link, the old one dead); auth, validation, hostile ids, another account's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('/v1/accounts/:accountId/invitations', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let reader: { authorization: string };
  const users = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/users`;
  const invitations = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/invitations`;
  function expectError(res: LightMyRequestResponse, status: number, code: string) {
    assert.equal(res.statusCode, status, res.body);
    assert.equal(body(res).error.code, code, res.body);
  }
  async function invite(acc: TestAccount, email: string, role = 'Member') {
    const res = await call(svc.api, 'POST', users(acc), { auth: acc.auth, json: { email, role } });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data as { link: string; email: string };
  }
  const tokenOf = (link: string) => link.split('/accept/')[1];
  const linkWorks = async (link: string) =>
    (await call(svc.api, 'GET', `/console/api/invitations/${tokenOf(link)}`)).statusCode === 200;
  async function listed(acc: TestAccount) {
    const res = await call(svc.api, 'GET', `${invitations(acc)}?limit=100`, { auth: acc.auth });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data as {
      id: string;
      email: string;
      role: string;
      expires: string;
      emailStatus: string;
    }[];
  }

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
    const token = await svc.ctx.tokens.issue({ id: a.clientId, name: 'reader', accountId: a.accountId }, [
      'users:read',
    ]);
    reader = { authorization: `Bearer ${token}` };
  });
  after(() => svc.close());

  it('lists open invitations, newest first, without their links; an accepted one is gone', async () => {
    await invite(a, 'first@example.com', 'Viewer');
    const second = await invite(a, 'second@example.com');
    const list = await listed(a);
    assert.deepEqual(
      list.map((i) => [i.email, i.role]),
      [
        ['second@example.com', 'Member'],
        ['first@example.com', 'Viewer'],
      ],
    );
    assert.equal(list[0].emailStatus, 'none');
    assert.match(list[0].expires, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.ok(!JSON.stringify(list).includes(tokenOf(second.link)), 'the link is never shown again');
    const res = await call(svc.api, 'GET', invitations(a), { auth: reader });
    assert.equal(res.statusCode, 200, 'users:read lists them');
    assert.equal(body(res).pagination.totalCount, 2);

    const accept = await call(svc.api, 'POST', `/console/api/invitations/${tokenOf(second.link)}/accept`, {
      json: { password: 'a long enough password', acceptTerms: true },
    });
    assert.equal(accept.statusCode, 200, accept.body);
    assert.deepEqual(
      (await listed(a)).map((i) => i.email),
      ['first@example.com'],
    );
  });

  it('revokes an open invitation: its link stops working', async () => {
    const inv = await invite(a, 'revoke@example.com');
    assert.ok(await linkWorks(inv.link));
    const id = (await listed(a)).find((i) => i.email === 'revoke@example.com')!.id;
    const res = await call(svc.api, 'DELETE', `${invitations(a)}/${id}`, { auth: a.auth });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await linkWorks(inv.link), false);
    assert.ok(!(await listed(a)).some((i) => i.id === id));
    expectError(await call(svc.api, 'DELETE', `${invitations(a)}/${id}`, { auth: a.auth }), 404, 'USER-011');
  });

  it('sends an invitation again: a new link, the old one dead, the same e-mail and role', async () => {
    const inv = await invite(a, 'resend@example.com', 'Viewer');
    const id = (await listed(a)).find((i) => i.email === 'resend@example.com')!.id;
    const res = await call(svc.api, 'POST', `${invitations(a)}/${id}/resend`, { auth: a.auth });
    assert.equal(res.statusCode, 201, res.body);
    const again = body(res).data;
    assert.equal(again.email, 'resend@example.com');
    assert.equal(again.role, 'Viewer');
    assert.notEqual(again.link, inv.link);
    assert.equal(await linkWorks(inv.link), false);
    assert.ok(await linkWorks(again.link));
    const now = (await listed(a)).filter((i) => i.email === 'resend@example.com');
    assert.equal(now.length, 1);
    assert.notEqual(now[0].id, id);
  });

  it("answers another account's invitation, unknown and hostile ids with 404 USER-011, changing nothing", async () => {
    const theirs = await invite(b, 'theirs@example.com');
    const theirId = (await listed(b))[0].id;
    for (const id of [theirId, 'x', 'a'.repeat(100), "'%20OR%201=1--", '..%2F..%2Fetc'])
      for (const [method, suffix] of [
        ['DELETE', ''],
        ['POST', '/resend'],
      ] as const)
        expectError(
          await call(svc.api, method, `${invitations(a)}/${id}${suffix}`, { auth: a.auth }),
          404,
          'USER-011',
        );
    assert.ok(await linkWorks(theirs.link), "b's invitation still works");
    assert.ok(!(await listed(a)).some((i) => i.email === 'theirs@example.com'), "b's is not listed for a");
    expectError(await call(svc.api, 'GET', invitations(b), { auth: a.auth }), 403, 'AUTH-003');
  });

  it('refuses bad paging and an over-long id with 400', async () => {
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc'])
      expectError(await call(svc.api, 'GET', `${invitations(a)}?${q}`, { auth: a.auth }), 400, 'VAL-001');
    expectError(
      await call(svc.api, 'DELETE', `${invitations(a)}/${'a'.repeat(101)}`, { auth: a.auth }),
      400,
      'VAL-001',
    );
  });

  it('needs a token (401) and users:write to change (403 AUTH-004)', async () => {
    await invite(a, 'guarded@example.com');
    const id = (await listed(a)).find((i) => i.email === 'guarded@example.com')!.id;
    expectError(await call(svc.api, 'GET', invitations(a)), 401, 'AUTH-001');
    expectError(await call(svc.api, 'DELETE', `${invitations(a)}/${id}`), 401, 'AUTH-001');
    expectError(await call(svc.api, 'DELETE', `${invitations(a)}/${id}`, { auth: reader }), 403, 'AUTH-004');
    expectError(
      await call(svc.api, 'POST', `${invitations(a)}/${id}/resend`, { auth: reader }),
      403,
      'AUTH-004',
    );
    assert.ok(
      (await listed(a)).some((i) => i.id === id),
      'still open',
    );
  });
});
