/**
 * The inbox's extensions (issue 27): a conversation marked unread, assigned to a person of the
 * account (and the list filtered by assignee), the contact's opt-out shown on it, and the account's
 * saved replies. Each: auth failure, validation failure, hostile values, another account's record.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ensureUser } from '../../src/domain/users/members.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const PASSWORD = 'correct horse battery';
const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

describe('inbox: unread, assignment, opt-out marker, saved replies', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  /** a token of account a with read scopes only, as a Viewer's. */
  let viewer: TestAccount;
  let ourA: string;
  let ourB: string;
  let seq = 10;
  const sender = () => `+120155503${String(seq++).padStart(2, '0')}`;
  let adaId: string;
  let bobOfB: string;
  let adaAuth: { authorization: string };

  async function ourNumber(accountId: string): Promise<string> {
    const { rows } = await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
      [accountId],
    );
    return rows[0].number;
  }
  async function say(from: string, text: string, to = ourA) {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to, text },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data as { messageId: string; conversationId: string };
  }
  const conv = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/conversations`;
  const replies = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/savedreplies`;
  function expectError(res: LightMyRequestResponse, status: number, code: string) {
    assert.equal(res.statusCode, status, res.body);
    assert.equal(body(res).success, false);
    assert.equal(body(res).error.code, code, res.body);
  }
  /** A console user's access token for the account (as the console gets it). */
  async function consoleToken(email: string, accountId: string) {
    const s = await call(svc.api, 'POST', '/console/api/session', { json: { email, password: PASSWORD } });
    assert.equal(s.statusCode, 200, s.body);
    const cookie = String(s.headers['set-cookie']).split(';')[0];
    const t = await call(svc.api, 'POST', '/console/api/token', {
      json: { accountId },
      headers: { cookie, 'x-csrf-token': body(s).data.csrfToken },
    });
    assert.equal(t.statusCode, 200, t.body);
    return { authorization: `Bearer ${body(t).access_token}` };
  }

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
    viewer = await svc.newAccount();
    // The Viewer's token: account a, read scopes only.
    viewer = {
      ...a,
      token: await svc.ctx.tokens.issue({ id: a.clientId, name: 'Viewer-like', accountId: a.accountId }, [
        'conversations:read',
        'users:read',
      ]),
      auth: { authorization: '' },
    };
    viewer.auth = { authorization: `Bearer ${viewer.token}` };
    ourA = await ourNumber(a.accountId);
    ourB = await ourNumber(b.accountId);
    ({ userId: adaId } = await ensureUser(
      svc.db,
      a.accountId,
      {
        email: 'ada@inbox.example',
        password: PASSWORD,
        role: 'Member',
        firstName: 'Ada',
        lastName: 'Lovelace',
        hashCost: svc.config.secretHashCost,
      },
      { id: 'test' },
    ));
    ({ userId: bobOfB } = await ensureUser(
      svc.db,
      b.accountId,
      {
        email: 'bob@inbox.example',
        password: PASSWORD,
        role: 'Administrator',
        firstName: 'Bob',
        hashCost: svc.config.secretHashCost,
      },
      { id: 'test' },
    ));
    adaAuth = await consoleToken('ada@inbox.example', a.accountId);
  });
  after(() => svc.close());

  describe('PUT /v1/accounts/:accountId/conversations/:conversationId/unread', () => {
    it('marks the newest text from the contact unread again: unread filter and count see it', async () => {
      const from = sender();
      await say(from, 'one');
      const c = await say(from, 'two');
      const read = await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/read`, { auth: a.auth });
      assert.deepEqual(body(read).data.unread, []);
      const res = await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/unread`, { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res).data.unread, [c.messageId], 'only the newest inbound text');
      const list = body(await call(svc.api, 'GET', `${conv(a)}?unread=true&limit=100`, { auth: a.auth }));
      assert.ok(list.data.some((x: { id: string }) => x.id === c.conversationId));
    });

    it('refuses a conversation with no text from the contact (409 CONV-003)', async () => {
      const sent = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
        auth: a.auth,
        json: { contacts: [{ mobile: { number: '+12015550488', country: 'US' } }], template: 'Hello' },
      });
      assert.equal(sent.statusCode, 200, sent.body);
      const id = body(sent).data.messages[0].conversation.id;
      expectError(await call(svc.api, 'PUT', `${conv(a)}/${id}/unread`, { auth: a.auth }), 409, 'CONV-003');
    });

    it("answers another account's conversation, an unknown and a malformed id with 404 CONV-002", async () => {
      const foreign = await say(sender(), 'for b', ourB);
      for (const id of [foreign.conversationId, NOT_THERE, 'abc', '1%27%20OR%201=1'])
        expectError(await call(svc.api, 'PUT', `${conv(a)}/${id}/unread`, { auth: a.auth }), 404, 'CONV-002');
      const still = body(
        await call(svc.api, 'GET', `${conv(b)}/${foreign.conversationId}`, { auth: b.auth }),
      );
      assert.deepEqual(still.data.unread, [foreign.messageId], "b's conversation untouched");
    });

    it('needs a token (401) with conversations:write (403 AUTH-004: a Viewer reads only)', async () => {
      const c = await say(sender(), 'hi');
      expectError(await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/unread`), 401, 'AUTH-001');
      expectError(
        await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/unread`, { auth: viewer.auth }),
        403,
        'AUTH-004',
      );
      expectError(
        await call(svc.api, 'PUT', `${conv(b)}/${c.conversationId}/unread`, { auth: a.auth }),
        403,
        'AUTH-003',
      );
    });
  });

  describe('PUT /v1/accounts/:accountId/conversations/:conversationId/assignee', () => {
    it('assigns to a person of the account, filters by assignee (a person, me, none), unassigns', async () => {
      const c = await say(sender(), 'assign me');
      const other = await say(sender(), 'leave me');
      const res = await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/assignee`, {
        auth: a.auth,
        json: { userId: adaId },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res).data.assignee, {
        id: adaId,
        email: 'ada@inbox.example',
        firstName: 'Ada',
        lastName: 'Lovelace',
      });
      assert.equal(
        body(await call(svc.api, 'GET', `${conv(a)}/${c.conversationId}`, { auth: viewer.auth })).data
          .assignee.id,
        adaId,
        'a reader sees it',
      );
      const ids = async (q: string, auth = a.auth) =>
        body(await call(svc.api, 'GET', `${conv(a)}?limit=100&${q}`, { auth })).data.map(
          (x: { id: string }) => x.id,
        );
      assert.deepEqual(await ids(`assignee=${adaId}`), [c.conversationId]);
      assert.deepEqual(await ids('assignee=me', adaAuth), [c.conversationId], "Ada's own");
      assert.deepEqual(await ids('assignee=me'), [], 'an API client is nobody: none are its');
      const none = await ids('assignee=none');
      assert.ok(none.includes(other.conversationId));
      assert.ok(!none.includes(c.conversationId));

      const un = await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/assignee`, {
        auth: adaAuth,
        json: { userId: null },
      });
      assert.equal(un.statusCode, 200, un.body);
      assert.equal(body(un).data.assignee, undefined);
      assert.equal(body(un).data.updated.by.email, 'ada@inbox.example', 'stamped with the person');
      assert.ok((await ids('assignee=none')).includes(c.conversationId));
    });

    it('unassigns the conversations of a person who leaves the account', async () => {
      const { userId } = await ensureUser(
        svc.db,
        a.accountId,
        {
          email: 'leaver@inbox.example',
          password: PASSWORD,
          role: 'Member',
          hashCost: svc.config.secretHashCost,
        },
        { id: 'test' },
      );
      const c = await say(sender(), 'to the leaver');
      await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/assignee`, {
        auth: a.auth,
        json: { userId },
      });
      const gone = await call(svc.api, 'DELETE', `/v1/accounts/${a.accountId}/users/${userId}`, {
        auth: a.auth,
      });
      assert.equal(gone.statusCode, 200, gone.body);
      const after = body(await call(svc.api, 'GET', `${conv(a)}/${c.conversationId}`, { auth: a.auth }));
      assert.equal(after.data.assignee, undefined);
    });

    it("refuses another account's person, an unknown one and a malformed body", async () => {
      const c = await say(sender(), 'who?');
      for (const userId of [bobOfB, NOT_THERE])
        expectError(
          await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/assignee`, {
            auth: a.auth,
            json: { userId },
          }),
          400,
          'CONV-004',
        );
      for (const json of [{}, { userId: 'abc' }, { userId: 7 }, { userId: "' OR 1=1 --" }])
        expectError(
          await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/assignee`, { auth: a.auth, json }),
          400,
          'VAL-001',
        );
      const got = body(await call(svc.api, 'GET', `${conv(a)}/${c.conversationId}`, { auth: a.auth }));
      assert.equal(got.data.assignee, undefined, 'nothing changed');
    });

    it("answers another account's conversation with 404, and needs conversations:write", async () => {
      const foreign = await say(sender(), 'b again', ourB);
      expectError(
        await call(svc.api, 'PUT', `${conv(a)}/${foreign.conversationId}/assignee`, {
          auth: a.auth,
          json: { userId: adaId },
        }),
        404,
        'CONV-002',
      );
      const c = await say(sender(), 'no rights');
      expectError(
        await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/assignee`, { json: { userId: adaId } }),
        401,
        'AUTH-001',
      );
      expectError(
        await call(svc.api, 'PUT', `${conv(a)}/${c.conversationId}/assignee`, {
          auth: viewer.auth,
          json: { userId: adaId },
        }),
        403,
        'AUTH-004',
      );
    });

    it('refuses a malformed assignee filter with 400', async () => {
      for (const q of ['assignee=someone', 'assignee=', "assignee=me'--", `assignee=${'a'.repeat(300)}`])
        expectError(await call(svc.api, 'GET', `${conv(a)}?${q}`, { auth: a.auth }), 400, 'VAL-001');
    });
  });

  it("shows an opted-out contact's opt-out on the conversation (list and one)", async () => {
    const from = sender();
    const c = await say(from, 'hello');
    assert.equal(
      body(await call(svc.api, 'GET', `${conv(a)}/${c.conversationId}`, { auth: a.auth })).data.contact
        .optOut,
      undefined,
    );
    await say(from, 'STOP');
    const one = body(await call(svc.api, 'GET', `${conv(a)}/${c.conversationId}`, { auth: a.auth })).data;
    assert.match(one.contact.optOut, /^\d{4}-\d\d-\d\dT.*Z$/);
    const list = body(await call(svc.api, 'GET', `${conv(a)}?limit=100`, { auth: a.auth })).data;
    assert.equal(
      list.find((x: { id: string }) => x.id === c.conversationId).contact.optOut,
      one.contact.optOut,
    );
  });

  describe('/v1/accounts/:accountId/savedreplies', () => {
    it('creates, lists by name, reads, changes and deletes a saved reply', async () => {
      const made = [];
      for (const [name, text] of [
        ['Opening hours', 'We are open 9 to 5, {{{firstName}}}.'],
        ['address', 'Find us at 1 Main St.'],
      ]) {
        const res = await call(svc.api, 'POST', replies(a), { auth: adaAuth, json: { name, text } });
        assert.equal(res.statusCode, 201, res.body);
        made.push(body(res).data);
      }
      assert.equal(made[0].name, 'Opening hours');
      assert.equal(made[0].text, 'We are open 9 to 5, {{{firstName}}}.');
      assert.equal(made[0].created.by.email, 'ada@inbox.example');
      const list = body(await call(svc.api, 'GET', replies(a), { auth: viewer.auth }));
      assert.deepEqual(
        list.data.map((r: { name: string }) => r.name),
        ['address', 'Opening hours'],
        'by name, case-insensitive',
      );
      assert.equal(list.pagination.totalCount, 2);
      const byName = body(await call(svc.api, 'GET', `${replies(a)}?name=HOURS`, { auth: a.auth }));
      assert.deepEqual(
        byName.data.map((r: { id: string }) => r.id),
        [made[0].id],
      );
      const got = await call(svc.api, 'GET', `${replies(a)}/${made[1].id}`, { auth: viewer.auth });
      assert.equal(body(got).data.text, 'Find us at 1 Main St.');
      const put = await call(svc.api, 'PUT', `${replies(a)}/${made[1].id}`, {
        auth: a.auth,
        json: { text: 'Find us at 2 Main St.' },
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(body(put).data.name, 'address', 'the name stays');
      assert.equal(body(put).data.text, 'Find us at 2 Main St.');
      const del = await call(svc.api, 'DELETE', `${replies(a)}/${made[1].id}`, { auth: a.auth });
      assert.equal(del.statusCode, 200, del.body);
      expectError(
        await call(svc.api, 'GET', `${replies(a)}/${made[1].id}`, { auth: a.auth }),
        404,
        'CONV-005',
      );
      await call(svc.api, 'DELETE', `${replies(a)}/${made[0].id}`, { auth: a.auth });
    });

    it('keeps hostile values as text', async () => {
      const hostile = [
        '<script>alert(1)</script>',
        "'; DROP TABLE saved_replies; --",
        '{{{7*7}}} ‮evil',
        '%00%',
      ];
      for (const v of hostile) {
        const res = await call(svc.api, 'POST', replies(a), { auth: a.auth, json: { name: v, text: v } });
        assert.equal(res.statusCode, 201, res.body);
        const got = body(
          await call(svc.api, 'GET', `${replies(a)}/${body(res).data.id}`, { auth: a.auth }),
        ).data;
        assert.equal(got.name, v);
        assert.equal(got.text, v);
        await call(svc.api, 'DELETE', `${replies(a)}/${got.id}`, { auth: a.auth });
      }
      const filtered = await call(svc.api, 'GET', `${replies(a)}?name=${encodeURIComponent('%_\\')}`, {
        auth: a.auth,
      });
      assert.equal(filtered.statusCode, 200);
      assert.deepEqual(body(filtered).data, [], 'wildcards are matched literally');
    });

    it('refuses invalid bodies with 400 VAL-001', async () => {
      const bad = [
        {},
        { name: 'x' },
        { text: 'x' },
        { name: '', text: 'x' },
        { name: '   ', text: 'x' },
        { name: 'x', text: '' },
        { name: 'x'.repeat(101), text: 'x' },
        { name: 'x', text: 'x'.repeat(1601) },
        { name: { a: 1 }, text: 'x' },
      ];
      for (const json of bad)
        expectError(await call(svc.api, 'POST', replies(a), { auth: a.auth, json }), 400, 'VAL-001');
      const res = await call(svc.api, 'POST', replies(a), { auth: a.auth, json: { name: 'n', text: 't' } });
      const id = body(res).data.id;
      for (const json of [{}, { name: '' }, { text: 'x'.repeat(1601) }])
        expectError(
          await call(svc.api, 'PUT', `${replies(a)}/${id}`, { auth: a.auth, json }),
          400,
          'VAL-001',
        );
      await call(svc.api, 'DELETE', `${replies(a)}/${id}`, { auth: a.auth });
    });

    it("answers another account's saved reply, an unknown and a malformed id with 404 CONV-005", async () => {
      const theirs = body(
        await call(svc.api, 'POST', replies(b), {
          auth: b.auth,
          json: { name: 'B only', text: 'secret of b' },
        }),
      ).data;
      for (const id of [theirs.id, NOT_THERE, 'abc']) {
        expectError(await call(svc.api, 'GET', `${replies(a)}/${id}`, { auth: a.auth }), 404, 'CONV-005');
        expectError(
          await call(svc.api, 'PUT', `${replies(a)}/${id}`, { auth: a.auth, json: { name: 'mine now' } }),
          404,
          'CONV-005',
        );
        expectError(await call(svc.api, 'DELETE', `${replies(a)}/${id}`, { auth: a.auth }), 404, 'CONV-005');
      }
      const list = body(await call(svc.api, 'GET', replies(a), { auth: a.auth })).data;
      assert.ok(!list.some((r: { id: string }) => r.id === theirs.id), "b's reply is not listed for a");
      const still = body(await call(svc.api, 'GET', `${replies(b)}/${theirs.id}`, { auth: b.auth })).data;
      assert.equal(still.name, 'B only');
      expectError(await call(svc.api, 'GET', replies(b), { auth: a.auth }), 403, 'AUTH-003');
    });

    it('needs a token (401); a reader reads but cannot change (403 AUTH-004)', async () => {
      expectError(await call(svc.api, 'GET', replies(a)), 401, 'AUTH-001');
      expectError(
        await call(svc.api, 'POST', replies(a), { json: { name: 'n', text: 't' } }),
        401,
        'AUTH-001',
      );
      assert.equal((await call(svc.api, 'GET', replies(a), { auth: viewer.auth })).statusCode, 200);
      expectError(
        await call(svc.api, 'POST', replies(a), { auth: viewer.auth, json: { name: 'n', text: 't' } }),
        403,
        'AUTH-004',
      );
      const mine = body(
        await call(svc.api, 'POST', replies(a), { auth: a.auth, json: { name: 'n', text: 't' } }),
      ).data;
      expectError(
        await call(svc.api, 'PUT', `${replies(a)}/${mine.id}`, { auth: viewer.auth, json: { name: 'v' } }),
        403,
        'AUTH-004',
      );
      expectError(
        await call(svc.api, 'DELETE', `${replies(a)}/${mine.id}`, { auth: viewer.auth }),
        403,
        'AUTH-004',
      );
      await call(svc.api, 'DELETE', `${replies(a)}/${mine.id}`, { auth: a.auth });
    });

    it('keeps at most 200 per account (409 CONV-006)', async () => {
      await svc.db.query(
        `INSERT INTO saved_replies (account_id, id, name, text)
         SELECT $1, gen_random_uuid(), 'r' || i, 't' FROM generate_series(1, 200) i`,
        [b.accountId],
      );
      expectError(
        await call(svc.api, 'POST', replies(b), { auth: b.auth, json: { name: 'one more', text: 't' } }),
        409,
        'CONV-006',
      );
      const created = await call(svc.api, 'POST', replies(a), {
        auth: a.auth,
        json: { name: 'a is fine', text: 't' },
      });
      assert.equal(created.statusCode, 201, 'another account is not held by b');
    });
  });
});
