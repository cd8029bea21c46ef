/**
 * A console user's access token (POST /console/api/token) is worth what their membership is worth
 * now: removed from an account, their token for it stops at once, though they still belong to
 * another account; demoted, it carries no more than the new role's scopes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ensureUser } from '../../src/domain/users/members.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const PASSWORD = 'correct horse battery';

function cookieOf(res: LightMyRequestResponse): string {
  const set = res.headers['set-cookie'];
  const line = Array.isArray(set) ? set[0] : set;
  return String(line).split(';')[0];
}

describe('a console token after its holder leaves the account or is demoted', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let leaverId: string;

  /** The person's console token for an account, through the console's own sign-in. */
  async function consoleToken(email: string, accountId: string): Promise<string> {
    const signed = await call(svc.api, 'POST', '/console/api/session', {
      json: { email, password: PASSWORD },
    });
    assert.equal(signed.statusCode, 200, signed.body);
    const res = await call(svc.api, 'POST', '/console/api/token', {
      json: { accountId },
      headers: { cookie: cookieOf(signed), 'x-csrf-token': body(signed).data.csrfToken },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).access_token;
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
    const email = 'leaver@example.com';
    ({ userId: leaverId } = await ensureUser(
      svc.db,
      a.accountId,
      { email, password: PASSWORD, role: 'Administrator', hashCost: svc.config.secretHashCost },
      { id: 'test' },
    ));
    // The same person is a member of another account too: leaving A is not leaving Sparrow.
    await ensureUser(
      svc.db,
      b.accountId,
      { email, password: PASSWORD, role: 'Member', hashCost: svc.config.secretHashCost },
      { id: 'test' },
    );
    await ensureUser(
      svc.db,
      a.accountId,
      {
        email: 'stays@example.com',
        password: PASSWORD,
        role: 'Administrator',
        hashCost: svc.config.secretHashCost,
      },
      { id: 'test' },
    );
    // The account keeps an administrator when the one above is demoted.
    await ensureUser(
      svc.db,
      a.accountId,
      {
        email: 'owner@example.com',
        password: PASSWORD,
        role: 'Administrator',
        hashCost: svc.config.secretHashCost,
      },
      { id: 'test' },
    );
  });
  after(() => svc.close());

  it('stops a removed member’s token for that account at once, and leaves their other account’s token working', async () => {
    const forA = await consoleToken('leaver@example.com', a.accountId);
    const forB = await consoleToken('leaver@example.com', b.accountId);
    const readA = () =>
      call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts`, { headers: bearer(forA) });
    assert.equal((await readA()).statusCode, 200);

    const removed = await call(svc.api, 'DELETE', `/v1/accounts/${a.accountId}/users/${leaverId}`, {
      auth: a.auth,
    });
    assert.equal(removed.statusCode, 200, removed.body);

    const after = await readA();
    assert.equal(after.statusCode, 401, after.body);
    const create = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/clients`, {
      headers: bearer(forA),
      json: { name: 'kept a way in' },
    });
    assert.equal(create.statusCode, 401, create.body);
    const readB = await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/contacts`, {
      headers: bearer(forB),
    });
    assert.equal(readB.statusCode, 200, readB.body);
  });

  it('gives a demoted administrator’s token no more than the new role’s scopes', async () => {
    const token = await consoleToken('stays@example.com', a.accountId);
    const users = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/users`, { auth: a.auth });
    const stays = body(users).data.find((u: { email: string }) => u.email === 'stays@example.com');
    const clients = () =>
      call(svc.api, 'GET', `/v1/accounts/${a.accountId}/clients`, { headers: bearer(token) });
    assert.equal((await clients()).statusCode, 200);

    const demoted = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}/users/${stays.id}`, {
      auth: a.auth,
      json: { role: 'Viewer' },
    });
    assert.equal(demoted.statusCode, 200, demoted.body);

    const res = await clients();
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(body(res).error.code, 'AUTH-004');
    const read = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts`, {
      headers: bearer(token),
    });
    assert.equal(read.statusCode, 200, 'a Viewer still reads');
  });
});
