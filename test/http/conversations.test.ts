import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

describe('conversations', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let ourA: string;
  let ourB: string;
  let seq = 10;
  const sender = () => `+120155502${String(seq++).padStart(2, '0')}`;
  /** A conversation of account b: a's token must never see it. */
  let foreign: string;

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
  async function events(accountId: string, type: string, conversationId: string) {
    const { rows } = await svc.db.query(
      `SELECT data FROM events WHERE account_id = $1 AND type = $2 AND data->'conversation'->>'id' = $3 ORDER BY created_at, id`,
      [accountId, type, conversationId],
    );
    return rows.map((r) => r.data);
  }
  const base = () => `/v1/accounts/${a.accountId}/conversations`;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
    // The tests read a's conversation-started events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['conversation-started']);
    ourA = await ourNumber(a.accountId);
    ourB = await ourNumber(b.accountId);
    foreign = (await say(sender(), 'for b', ourB)).conversationId;
  });
  after(() => svc.close());

  describe('GET /v1/accounts/:accountId/conversations', () => {
    it('lists the conversations, most recent activity first, with pagination', async () => {
      const c1 = await say(sender(), 'first');
      const c2 = await say(sender(), 'second');
      const res = await call(svc.api, 'GET', `${base()}?limit=100`, { auth: a.auth });
      assert.equal(res.statusCode, 200);
      const { data, pagination } = body(res);
      const ids = data.map((c: { id: string }) => c.id);
      assert.ok(ids.indexOf(c2.conversationId) < ids.indexOf(c1.conversationId));
      assert.equal(pagination.totalCount, data.length);
      assert.equal(pagination.hasNext, false);
      assert.equal(pagination.limit, 100);
      assert.ok(!ids.includes(foreign), "another account's conversation is not listed");
      const one = data.find((c: { id: string }) => c.id === c2.conversationId);
      assert.equal(one.phoneNumber.number, ourA, 'our number is a phone-number object');
      assert.equal(one.phoneNumber.active, true);
      assert.equal(one.lastMessage.id, c2.messageId);
      assert.equal(one.lastMessage.outgoing, false);
      assert.deepEqual(one.unread, [c2.messageId]);
      assert.equal(one.closed, false);
      assert.match(one.created.at, /^\d{4}-\d\d-\d\dT.*Z$/);
    });

    it('pages with offset and limit', async () => {
      await say(sender(), 'x');
      await say(sender(), 'y');
      const all = body(await call(svc.api, 'GET', `${base()}?limit=100`, { auth: a.auth }));
      const p = body(await call(svc.api, 'GET', `${base()}?offset=1&limit=1`, { auth: a.auth }));
      assert.equal(p.data.length, 1);
      assert.equal(p.data[0].id, all.data[1].id);
      assert.equal(p.pagination.hasNext, true);
      assert.equal(p.pagination.totalCount, all.pagination.totalCount);
    });

    it('filters by contactId, closed and unread', async () => {
      const from = sender();
      const c = await say(from, 'filter me');
      const conv = body(await call(svc.api, 'GET', `${base()}/${c.conversationId}`, { auth: a.auth })).data;
      const byContact = body(
        await call(svc.api, 'GET', `${base()}?contactId=${conv.contact.id}`, { auth: a.auth }),
      ).data;
      assert.deepEqual(
        byContact.map((x: { id: string }) => x.id),
        [c.conversationId],
      );

      const read = await say(sender(), 'will be read');
      await call(svc.api, 'PUT', `${base()}/${read.conversationId}/read`, { auth: a.auth });
      const unread = body(
        await call(svc.api, 'GET', `${base()}?unread=true&limit=100`, { auth: a.auth }),
      ).data;
      assert.ok(unread.some((x: { id: string }) => x.id === c.conversationId));
      assert.ok(!unread.some((x: { id: string }) => x.id === read.conversationId));
      const noUnread = body(
        await call(svc.api, 'GET', `${base()}?unread=false&limit=100`, { auth: a.auth }),
      ).data;
      assert.ok(noUnread.some((x: { id: string }) => x.id === read.conversationId));
      assert.ok(noUnread.every((x: { unread: string[] }) => x.unread.length === 0));

      await call(svc.api, 'PUT', `${base()}/${c.conversationId}/close`, { auth: a.auth });
      const closed = body(
        await call(svc.api, 'GET', `${base()}?closed=true&limit=100`, { auth: a.auth }),
      ).data;
      assert.deepEqual(
        closed.map((x: { id: string }) => x.id),
        [c.conversationId],
      );
      const open = body(
        await call(svc.api, 'GET', `${base()}?closed=false&limit=100`, { auth: a.auth }),
      ).data;
      assert.ok(!open.some((x: { id: string }) => x.id === c.conversationId));
      // Reopen it so the other tests see only open conversations as before.
      await say(from, 'back again');
    });

    it('filters threads with a reply from outbound-only ones (replied), and searches by contact (q)', async () => {
      // An outbound-only thread: a send to a new contact opens it; nobody answered.
      const sent = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
        auth: a.auth,
        json: {
          contacts: [
            { firstName: 'Quiet', lastName: 'O%Neil_', mobile: { number: '+12015550377', country: 'US' } },
          ],
          template: 'No answer expected',
        },
      });
      assert.equal(sent.statusCode, 200, sent.body);
      const quiet = body(sent).data.messages[0].conversation.id;
      const talk = await say(sender(), 'a reply');
      const replied = body(await call(svc.api, 'GET', `${base()}?replied=true&limit=100`, { auth: a.auth }));
      const ids = replied.data.map((x: { id: string }) => x.id);
      assert.ok(ids.includes(talk.conversationId));
      assert.ok(!ids.includes(quiet), 'an outbound-only thread is not among the replied ones');
      assert.equal(replied.pagination.totalCount, replied.data.length);
      const silent = body(
        await call(svc.api, 'GET', `${base()}?replied=false&limit=100`, { auth: a.auth }),
      ).data;
      assert.deepEqual(
        silent.map((x: { id: string }) => x.id),
        [quiet],
      );
      const found = body(await call(svc.api, 'GET', `${base()}?q=o%25neil_`, { auth: a.auth }));
      assert.deepEqual(
        found.data.map((x: { id: string }) => x.id),
        [quiet],
      );
      assert.equal(found.pagination.totalCount, 1);
      // % and _ are matched as themselves, not as wildcards.
      assert.equal(body(await call(svc.api, 'GET', `${base()}?q=O_Neil`, { auth: a.auth })).data.length, 0);
      assert.equal(body(await call(svc.api, 'GET', `${base()}?q=5550377`, { auth: a.auth })).data.length, 1);
      assert.equal(
        (await call(svc.api, 'GET', `${base()}?q=${'x'.repeat(101)}`, { auth: a.auth })).statusCode,
        400,
      );
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'GET', base());
      assert.equal(res.statusCode, 401);
      assert.equal(body(res).error.code, 'AUTH-001');
    });

    it('rejects an out-of-range limit and a malformed contactId with 400', async () => {
      for (const q of ['limit=0', 'limit=101', 'offset=-1', 'contactId=nope', 'closed=maybe']) {
        const res = await call(svc.api, 'GET', `${base()}?${q}`, { auth: a.auth });
        assert.equal(res.statusCode, 400, q);
        assert.equal(body(res).error.code, 'VAL-001', q);
      }
    });

    it("answers 403 for another account's path", async () => {
      const res = await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/conversations`, { auth: a.auth });
      assert.equal(res.statusCode, 403);
    });

    it('needs the conversations:read scope', async () => {
      const limited = await svc.newAccount({ scopes: ['account:read'] });
      const res = await call(svc.api, 'GET', `/v1/accounts/${limited.accountId}/conversations`, {
        auth: limited.auth,
      });
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-004');
    });
  });

  describe('GET /v1/accounts/:accountId/conversations/:conversationId', () => {
    it('answers the conversation with its contact and last message', async () => {
      const from = sender();
      const c = await say(from, 'hello');
      const res = await call(svc.api, 'GET', `${base()}/${c.conversationId}`, { auth: a.auth });
      assert.equal(res.statusCode, 200);
      const { data } = body(res);
      assert.equal(data.id, c.conversationId);
      assert.equal(data.contact.mobile.number, from);
      assert.equal(data.lastMessage.id, c.messageId);
      assert.equal(data.lastMessage.message ?? data.lastMessage.body, 'hello');
      assert.deepEqual(data.unread, [c.messageId]);
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'GET', `${base()}/${foreign}`);
      assert.equal(res.statusCode, 401);
    });

    it("answers 404 CONV-002 for another account's conversation, an unknown id and a malformed id", async () => {
      for (const id of [foreign, '0190a5b2-0000-7000-8000-000000000000', 'not-an-id']) {
        const res = await call(svc.api, 'GET', `${base()}/${id}`, { auth: a.auth });
        assert.equal(res.statusCode, 404, id);
        assert.equal(body(res).error.code, 'CONV-002', id);
      }
    });
  });

  describe('PUT /v1/accounts/:accountId/conversations/:conversationId/close', () => {
    it('closes the conversation once, with one conversation-closed event', async () => {
      const c = await say(sender(), 'bye');
      const res = await call(svc.api, 'PUT', `${base()}/${c.conversationId}/close`, { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.closed, true);
      assert.equal(body(res).data.id, c.conversationId);
      const again = await call(svc.api, 'PUT', `${base()}/${c.conversationId}/close`, { auth: a.auth });
      assert.equal(again.statusCode, 200);
      assert.equal(body(again).data.closed, true);
      const ev = await events(a.accountId, 'conversation-closed', c.conversationId);
      assert.equal(ev.length, 1);
      assert.equal(ev[0].conversation.closed, true);
    });

    it('is reopened by a new inbound message, with conversation-started marked reopened', async () => {
      const from = sender();
      const c = await say(from, 'one');
      await call(svc.api, 'PUT', `${base()}/${c.conversationId}/close`, { auth: a.auth });
      const next = await say(from, 'two');
      assert.equal(next.conversationId, c.conversationId);
      const conv = body(await call(svc.api, 'GET', `${base()}/${c.conversationId}`, { auth: a.auth })).data;
      assert.equal(conv.closed, false);
      const started = await events(a.accountId, 'conversation-started', c.conversationId);
      assert.deepEqual(
        started.map((e) => e.reopened),
        [false, true],
      );
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'PUT', `${base()}/${foreign}/close`);
      assert.equal(res.statusCode, 401);
    });

    it("answers 404 CONV-002 for another account's conversation and a malformed id, and leaves it open", async () => {
      for (const id of [foreign, 'nope']) {
        const res = await call(svc.api, 'PUT', `${base()}/${id}/close`, { auth: a.auth });
        assert.equal(res.statusCode, 404);
        assert.equal(body(res).error.code, 'CONV-002');
      }
      const theirs = body(
        await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/conversations/${foreign}`, { auth: b.auth }),
      );
      assert.equal(theirs.data.closed, false);
    });
  });

  describe('PUT /v1/accounts/:accountId/conversations/:conversationId/read', () => {
    it('marks every inbound message read', async () => {
      const from = sender();
      await say(from, 'one');
      const c = await say(from, 'two');
      const res = await call(svc.api, 'PUT', `${base()}/${c.conversationId}/read`, { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(body(res).data.unread, []);
      const { rows } = await svc.db.query(
        'SELECT bool_and(read) AS all_read FROM messages WHERE account_id = $1 AND conversation_id = $2 AND NOT outgoing',
        [a.accountId, c.conversationId],
      );
      assert.equal(rows[0].all_read, true);
      const later = await say(from, 'three');
      const conv = body(await call(svc.api, 'GET', `${base()}/${c.conversationId}`, { auth: a.auth })).data;
      assert.deepEqual(conv.unread, [later.messageId]);
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'PUT', `${base()}/${foreign}/read`);
      assert.equal(res.statusCode, 401);
    });

    it("answers 404 CONV-002 for another account's conversation and leaves its messages unread", async () => {
      const res = await call(svc.api, 'PUT', `${base()}/${foreign}/read`, { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'CONV-002');
      const theirs = body(
        await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/conversations/${foreign}`, { auth: b.auth }),
      );
      assert.equal(theirs.data.unread.length, 1);
    });

    it('needs the conversations:write scope', async () => {
      const limited = await svc.newAccount({ scopes: ['conversations:read'] });
      const res = await call(
        svc.api,
        'PUT',
        `/v1/accounts/${limited.accountId}/conversations/${foreign}/read`,
        {
          auth: limited.auth,
        },
      );
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-004');
    });
  });
});
