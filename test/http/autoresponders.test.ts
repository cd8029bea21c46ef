import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { numberZonesLateral } from '../../src/db/queries/phone-zones.ts';
import { SCOPES } from '../../src/schemas/scopes.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

/** A fixed-offset zone whose clocks read hour `h` (and the current minute) right now. */
function zoneAtHour(h: number): string {
  let o = (h - new Date().getUTCHours() + 48) % 24;
  if (o > 14) o -= 24;
  // Etc/GMT names carry the inverted sign: Etc/GMT-3 is UTC+3.
  return o === 0 ? 'Etc/GMT' : `Etc/GMT${o > 0 ? '-' : '+'}${Math.abs(o)}`;
}

/** Office hours 9:00–17:00 every day of the week in `timezone`. */
function everyDayNineToFive(timezone: string) {
  const day = [{ start: { hour: 9, minute: 0 }, end: { hour: 17, minute: 0 } }];
  return {
    active: true,
    timezone,
    times: { sun: day, mon: day, tue: day, wed: day, thu: day, fri: day, sat: day },
  };
}

/** Clocks there read 3:xx or 4:xx while the test runs: outside 9–17 even if the hour turns. */
const NIGHT_ZONE = () => zoneAtHour(3);
/** Clocks there read 12:xx or 13:xx while the test runs: inside 9–17. */
const NOON_ZONE = () => zoneAtHour(12);

describe('autoresponders', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  let senderSeq = 10;
  /** A fresh valid sender number (+1 201 555 02NN… ) per use. */
  const sender = () => `+1201555${String(2000 + senderSeq++).padStart(4, '0')}`;
  const path = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/autoresponders${rest}`;
  const post = (acc: TestAccount, json: unknown, auth = acc.auth) =>
    call(svc.api, 'POST', path(acc), { auth, json });
  const keywordsBody = (json: object = {}) => ({
    name: `Auto ${seq++}`,
    trigger: { type: 'keywords', keywords: ['hours'] },
    message: { message: 'We are open 9–5. {{{mobile}}}' },
    ...json,
  });
  const create = async (acc: TestAccount, json: object = {}) => {
    const res = await post(acc, keywordsBody(json));
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const groupsOf = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/groups?limit=100`, { auth: acc.auth }))
      .data as { id: string; name: string; isDefault: boolean; phoneNumbers: { number: string }[] }[];
  const defaultGroup = async (acc: TestAccount) => (await groupsOf(acc)).find((g) => g.isDefault)!;
  const setOfficeHours = async (acc: TestAccount, groupId: string, officeHours: unknown) => {
    const res = await call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}/groups/${groupId}`, {
      auth: acc.auth,
      json: { officeHours },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const ourNumber = async (acc: TestAccount) => (await defaultGroup(acc)).phoneNumbers[0].number;
  const inbound = async (json: { from: string; to: string; text: string; id?: string }) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', { json });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  const message = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages/${id}`, { auth: acc.auth })).data;
  const outgoingTo = async (acc: TestAccount, from: string) => {
    const { rows } = await svc.db.query(
      `SELECT m.* FROM messages m JOIN contacts c ON c.account_id = m.account_id AND c.id = m.contact_id
        WHERE m.account_id = $1 AND c.mobile_number = $2 AND m.outgoing ORDER BY m.created_at, m.id`,
      [acc.accountId, from],
    );
    return rows;
  };
  const get = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', path(acc, `/${id}`), { auth: acc.auth })).data;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/autoresponders', () => {
    it('creates an autoresponder with 201 in its shape, active, with zero stats and audit stamps', async () => {
      const res = await post(a, {
        name: 'Opening hours',
        trigger: { type: 'keywords', keywords: ['Hours?', 'opening  times', 'HOURS'] },
        message: {
          message: 'Hi {{{firstName}}}, we open at 9.',
          media: [{ url: 'https://cdn.example.com/map.png', type: 'image/png' }],
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const r = body(res).data;
      assert.match(r.id, /^[0-9a-f-]{36}$/);
      assert.equal(r.name, 'Opening hours');
      assert.equal(r.group, undefined, 'no group: every number of the account');
      // Trimmed as written; the duplicate after folding ("HOURS" = "Hours?") is dropped.
      assert.deepEqual(r.trigger, { type: 'keywords', keywords: ['Hours?', 'opening  times'] });
      assert.deepEqual(r.message, {
        message: 'Hi {{{firstName}}}, we open at 9.',
        media: [{ url: 'https://cdn.example.com/map.png', type: 'image/png' }],
      });
      assert.equal(r.active, true);
      assert.equal(r.priority, 0);
      assert.deepEqual(r.stats, { triggered: 0, repliesSent: 0, suppressed: 0 });
      assert.equal(r.created.by.id, a.clientId);
      assert.match(r.created.at, /Z$/);
      assert.deepEqual(await get(a, r.id), r);
    });

    it('creates an office-hours autoresponder for a group that keeps office hours', async () => {
      const acc = await svc.newAccount();
      const g = await defaultGroup(acc);
      await setOfficeHours(acc, g.id, everyDayNineToFive('America/New_York'));
      const r = await create(acc, { trigger: { type: 'outsideOfficeHours' }, group: { id: g.id } });
      assert.deepEqual(r.trigger, { type: 'outsideOfficeHours' });
      assert.deepEqual(r.group, { id: g.id, name: g.name });
    });

    it('answers 401 without a token and 403 without autoresponders:write or for another account', async () => {
      assert.equal((await call(svc.api, 'POST', path(a), { json: keywordsBody() })).statusCode, 401);
      const reader = await svc.newAccount({ scopes: ['autoresponders:read'] });
      const res = await post(reader, keywordsBody());
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-004');
      const other = await post(b, keywordsBody(), a.auth);
      assert.equal(other.statusCode, 403);
      assert.equal(body(other).error.code, 'AUTH-003');
    });

    it('rejects invalid bodies with 400 naming what is wrong', async () => {
      const cases: [unknown, string][] = [
        [{ trigger: { type: 'keywords', keywords: ['x'] }, message: { message: 'x' } }, 'VAL-001'],
        [keywordsBody({ name: '' }), 'VAL-001'],
        [keywordsBody({ trigger: { type: 'sometimes' } }), 'VAL-001'],
        [keywordsBody({ message: { message: '' } }), 'VAL-001'],
        [keywordsBody({ message: { message: 'x'.repeat(1601) } }), 'VAL-001'],
        [keywordsBody({ priority: 1001 }), 'VAL-001'],
        [keywordsBody({ priority: 1.5 }), 'VAL-001'],
        [keywordsBody({ active: 'yes' }), 'VAL-001'],
        [keywordsBody({ group: { id: 'not-an-id' } }), 'VAL-001'],
        [keywordsBody({ message: { message: 'x', media: [{ url: 'ftp://example.com/a' }] } }), 'VAL-001'],
        [keywordsBody({ message: { message: 'x', media: [{ url: 'http://127.0.0.1/a.png' }] } }), 'MSG-009'],
        [keywordsBody({ trigger: { type: 'keywords' } }), 'AUTO-002'],
        [keywordsBody({ trigger: { type: 'keywords', keywords: [] } }), 'AUTO-002'],
        [keywordsBody({ trigger: { type: 'outsideOfficeHours' } }), 'AUTO-002'],
      ];
      for (const [json, code] of cases) {
        const res = await post(a, json);
        assert.equal(res.statusCode, 400, `${JSON.stringify(json).slice(0, 120)}: ${res.body}`);
        assert.equal(body(res).error.code, code, JSON.stringify(json).slice(0, 120));
      }
    });

    it('refuses an office-hours trigger with keywords, or on a group that keeps no office hours (AUTO-002)', async () => {
      const acc = await svc.newAccount();
      const g = await defaultGroup(acc);
      const none = await post(
        acc,
        keywordsBody({ trigger: { type: 'outsideOfficeHours' }, group: { id: g.id } }),
      );
      assert.equal(none.statusCode, 400);
      assert.equal(body(none).error.code, 'AUTO-002');
      assert.match(body(none).error.message, /office hours/);
      await setOfficeHours(acc, g.id, { ...everyDayNineToFive('UTC'), active: false });
      const off = await post(
        acc,
        keywordsBody({ trigger: { type: 'outsideOfficeHours' }, group: { id: g.id } }),
      );
      assert.equal(body(off).error.code, 'AUTO-002');
      await setOfficeHours(acc, g.id, everyDayNineToFive('UTC'));
      const both = await post(
        acc,
        keywordsBody({ trigger: { type: 'outsideOfficeHours', keywords: ['hours'] }, group: { id: g.id } }),
      );
      assert.equal(body(both).error.code, 'AUTO-002');
    });

    it("answers 404 GRP-001 for another account's group and for an unknown one", async () => {
      const theirs = await defaultGroup(b);
      for (const id of [theirs.id, NOT_THERE]) {
        const res = await post(a, keywordsBody({ group: { id } }));
        assert.equal(res.statusCode, 404);
        assert.equal(body(res).error.code, 'GRP-001');
      }
    });

    it('caps the keyword list and each keyword, and refuses keywords that could never match', async () => {
      const many = Array.from({ length: 51 }, (_, i) => `word${i}`);
      const tooMany = await post(a, keywordsBody({ trigger: { type: 'keywords', keywords: many } }));
      assert.equal(tooMany.statusCode, 400);
      const huge = await post(
        a,
        keywordsBody({ trigger: { type: 'keywords', keywords: Array(100_000).fill('hours') } }),
      );
      assert.equal(huge.statusCode, 400);
      const long = await post(a, keywordsBody({ trigger: { type: 'keywords', keywords: ['x'.repeat(51)] } }));
      assert.equal(long.statusCode, 400);
      for (const keyword of ['?', '   ', '🛑', 'ST.OP', "don't", 'STOP', 'help!', 'Unsubscribe', '\u202e']) {
        const res = await post(
          a,
          keywordsBody({ trigger: { type: 'keywords', keywords: ['fine', keyword] } }),
        );
        assert.equal(res.statusCode, 400, JSON.stringify(keyword));
        assert.equal(body(res).error.code, 'AUTO-003', JSON.stringify(keyword));
      }
      // Fifty is allowed, and a right-to-left keyword is stored as written.
      const fifty = await create(a, {
        trigger: { type: 'keywords', keywords: [...many.slice(0, 49), '\u200fساعات\u200f'] },
      });
      assert.equal(fifty.trigger.keywords.length, 50);
      assert.equal(fifty.trigger.keywords[49], '\u200fساعات\u200f');
    });

    it('refuses a 101st autoresponder with 409 AUTO-004', async () => {
      const acc = await svc.newAccount();
      for (let i = 0; i < 100; i++) await create(acc, { active: false });
      const res = await post(acc, keywordsBody());
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'AUTO-004');
    });
  });

  describe('GET /v1/accounts/:accountId/autoresponders', () => {
    it('lists newest first, paged, filtered by group and by active', async () => {
      const acc = await svc.newAccount();
      const g = await defaultGroup(acc);
      const one = await create(acc, { group: { id: g.id } });
      const two = await create(acc, { active: false });
      const three = await create(acc, { group: { id: g.id }, active: false });
      const list = (q: string) =>
        call(svc.api, 'GET', path(acc, q), { auth: acc.auth }).then((r) => {
          assert.equal(r.statusCode, 200, r.body);
          return body(r);
        });
      const all = await list('');
      assert.deepEqual(
        all.data.map((x: { id: string }) => x.id),
        [three.id, two.id, one.id],
      );
      assert.deepEqual(all.pagination, { limit: 20, offset: 0, hasNext: false, totalCount: 3 });
      const paged = await list('?limit=1&offset=1');
      assert.deepEqual(
        paged.data.map((x: { id: string }) => x.id),
        [two.id],
      );
      assert.equal(paged.pagination.hasNext, true);
      assert.deepEqual(
        (await list(`?groupId=${g.id}`)).data.map((x: { id: string }) => x.id),
        [three.id, one.id],
      );
      assert.deepEqual(
        (await list('?active=false')).data.map((x: { id: string }) => x.id),
        [three.id, two.id],
      );
      assert.deepEqual(
        (await list(`?active=true&groupId=${g.id.toUpperCase()}`)).data.map((x: { id: string }) => x.id),
        [one.id],
      );
      assert.equal((await list(`?groupId=${NOT_THERE}`)).data.length, 0);
    });

    it('answers 400 for bad paging and filters, 401 without a token, 403 without the scope', async () => {
      for (const q of ['?limit=0', '?limit=101', '?offset=-1', '?active=maybe', '?groupId=nope']) {
        const res = await call(svc.api, 'GET', path(a, q), { auth: a.auth });
        assert.equal(res.statusCode, 400, q);
      }
      assert.equal((await call(svc.api, 'GET', path(a))).statusCode, 401);
      const other = await svc.newAccount({ scopes: ['templates:read'] });
      assert.equal((await call(svc.api, 'GET', path(other), { auth: other.auth })).statusCode, 403);
      assert.equal((await call(svc.api, 'GET', path(b), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('GET, PUT, DELETE /v1/accounts/:accountId/autoresponders/:autoresponderId', () => {
    it("answers 404 AUTO-001 for another account's autoresponder, an unknown id and a malformed one", async () => {
      const theirs = await create(b);
      for (const id of [theirs.id, NOT_THERE, 'abc']) {
        for (const [method, json] of [
          ['GET', undefined],
          ['PUT', { name: 'Mine now' }],
          ['DELETE', undefined],
        ] as const) {
          const res = await call(svc.api, method, path(a, `/${id}`), { auth: a.auth, json });
          assert.equal(res.statusCode, 404, `${method} ${id}`);
          assert.equal(body(res).error.code, 'AUTO-001', `${method} ${id}`);
        }
      }
      assert.equal((await get(b, theirs.id)).name, theirs.name, 'unchanged');
    });

    it('updates only the given fields, keeps stats, and can widen to every number with group: null', async () => {
      const acc = await svc.newAccount();
      const g = await defaultGroup(acc);
      const r = await create(acc, { group: { id: g.id }, priority: 5 });
      const res = await call(svc.api, 'PUT', path(acc, `/${r.id}`), {
        auth: acc.auth,
        json: { active: false, trigger: { type: 'keywords', keywords: ['price', 'cost'] } },
      });
      assert.equal(res.statusCode, 200, res.body);
      const u = body(res).data;
      assert.equal(u.active, false);
      assert.deepEqual(u.trigger.keywords, ['price', 'cost']);
      assert.equal(u.name, r.name);
      assert.equal(u.priority, 5);
      assert.deepEqual(u.group, r.group);
      assert.deepEqual(u.message, r.message);
      assert.equal(u.created.at, r.created.at);
      const widened = body(
        await call(svc.api, 'PUT', path(acc, `/${r.id}`), { auth: acc.auth, json: { group: null } }),
      ).data;
      assert.equal(widened.group, undefined);
    });

    it('validates an update like a create (400, 404 GRP-001) and needs autoresponders:write (403)', async () => {
      const r = await create(a);
      const put = (json: unknown, auth = a.auth) => call(svc.api, 'PUT', path(a, `/${r.id}`), { auth, json });
      assert.equal(
        body(await put({ trigger: { type: 'keywords', keywords: ['STOP'] } })).error.code,
        'AUTO-003',
      );
      assert.equal(body(await put({ trigger: { type: 'outsideOfficeHours' } })).error.code, 'AUTO-002');
      assert.equal((await put({ name: '' })).statusCode, 400);
      const theirs = await defaultGroup(b);
      const res = await put({ group: { id: theirs.id } });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'GRP-001');
      assert.equal(
        (await call(svc.api, 'PUT', path(a, `/${r.id}`), { json: { name: 'x' } })).statusCode,
        401,
      );
      const reader = await svc.newAccount({ scopes: ['autoresponders:read'] });
      const mine = await call(svc.api, 'PUT', path(reader, `/${NOT_THERE}`), {
        auth: reader.auth,
        json: { name: 'x' },
      });
      assert.equal(mine.statusCode, 403);
    });

    it('deletes, after which it is 404', async () => {
      const r = await create(a);
      const del = await call(svc.api, 'DELETE', path(a, `/${r.id}`), { auth: a.auth });
      assert.equal(del.statusCode, 200);
      assert.deepEqual(body(del), { success: true });
      assert.equal((await call(svc.api, 'GET', path(a, `/${r.id}`), { auth: a.auth })).statusCode, 404);
      assert.equal((await call(svc.api, 'DELETE', path(a, `/${r.id}`), { auth: a.auth })).statusCode, 404);
      assert.equal((await call(svc.api, 'DELETE', path(a, `/${r.id}`))).statusCode, 401);
    });

    it("deletes a group's autoresponders with the group", async () => {
      const acc = await svc.newAccount();
      const g = body(
        await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/groups`, {
          auth: acc.auth,
          json: { name: 'Night shift' },
        }),
      ).data;
      const r = await create(acc, { group: { id: g.id } });
      const del = await call(svc.api, 'DELETE', `/v1/accounts/${acc.accountId}/groups/${g.id}`, {
        auth: acc.auth,
      });
      assert.equal(del.statusCode, 200, del.body);
      assert.equal((await call(svc.api, 'GET', path(acc, `/${r.id}`), { auth: acc.auth })).statusCode, 404);
    });
  });

  describe('scopes', () => {
    it('gives new clients both scopes, and migration 0240 gives them to clients that held every earlier scope', async () => {
      const fresh = await svc.newAccount();
      assert.equal((await call(svc.api, 'GET', path(fresh), { auth: fresh.auth })).statusCode, 200);

      const earlier = SCOPES.filter((x) => !x.startsWith('autoresponders:'));
      const clients = [
        { id: `full-${seq++}`, scopes: earlier },
        { id: `part-${seq++}`, scopes: ['messages:send', 'templates:read'] },
      ];
      for (const cl of clients) {
        await svc.db.query(
          `INSERT INTO api_clients (id, account_id, name, secret_hash, scopes) VALUES ($1, $2, 'old', 'x', $3)`,
          [cl.id, a.accountId, cl.scopes],
        );
      }
      const sql = readFileSync(
        new URL('../../src/db/migrations/0240_autoresponders.sql', import.meta.url),
        'utf8',
      );
      const upgrade = sql.slice(sql.indexOf('UPDATE api_clients'));
      await svc.db.query(upgrade);
      await svc.db.query(upgrade);
      const { rows } = await svc.db.query(
        'SELECT id, scopes FROM api_clients WHERE id = ANY($1) ORDER BY id',
        [clients.map((cl) => cl.id)],
      );
      const byId = new Map(rows.map((r) => [r.id, r.scopes as string[]]));
      assert.deepEqual(byId.get(clients[0].id), [...earlier, 'autoresponders:read', 'autoresponders:write']);
      assert.deepEqual(byId.get(clients[1].id), clients[1].scopes);
    });
  });

  describe('answering inbound texts', () => {
    before(() => svc.startWorkers([dispatch]));

    it('answers a text containing a keyword as a whole word, in any case, through the normal send path', async () => {
      const acc = await svc.newAccount();
      // The test reads the reply's message-sent and message-status events, written only where heard.
      await listenToEvents(svc.db, acc.accountId, ['message-sent', 'message-status']);
      const to = await ourNumber(acc);
      const r = await create(acc, { trigger: { type: 'keywords', keywords: ['hours'] } });
      const before = body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth }),
      ).data.balance;
      const from = sender();
      const got = await inbound({ from, to, text: 'Hours?' });
      assert.equal(got.autoresponse.autoresponderId, r.id);
      const replyId = got.autoresponse.messageId;
      assert.ok(replyId);

      const m = await message(acc, replyId);
      // Smart encoding is on by default: the en dash goes as GSM-7's hyphen, so the reply stays GSM-7.
      assert.equal(
        m.message,
        `We are open 9-5. ${from}`,
        'merge fields rendered for the contact, smart-encoded',
      );
      assert.equal(m.conversation.id, got.conversationId);
      assert.ok(m.price > 0, 'priced');
      assert.equal(m.created.by.source, 'autoresponder');
      assert.equal(m.created.by.id, r.id);
      const after = body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth }),
      ).data.balance;
      assert.ok(Math.abs(before - m.price - after) < 1e-9, `charged: ${before} - ${m.price} = ${after}`);

      const conv = body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/conversations/${got.conversationId}`, {
          auth: acc.auth,
        }),
      ).data;
      assert.equal(conv.lastMessage.id, replyId, 'threaded into the conversation');

      // The dispatcher sends it like any message: message-sent, then the delivery receipt.
      await eventually(async () => (await message(acc, replyId)).status === 'delivered');
      const { rows } = await svc.db.query(
        `SELECT type FROM events e WHERE account_id = $1 AND sparrow_event_payload(e) -> 'message' ->> 'id' = $2
          ORDER BY created_at, id`,
        [acc.accountId, replyId],
      );
      assert.deepEqual(
        rows.map((x) => x.type),
        ['message-sent', 'message-status'],
      );
      const stats = (await get(acc, r.id)).stats;
      assert.equal(stats.triggered, 1);
      assert.equal(stats.repliesSent, 1);
      assert.equal(stats.suppressed, 0);
      assert.match(stats.lastTriggeredAt, /Z$/);
      assert.match(stats.lastReplyAt, /Z$/);
    });

    it('does not answer a keyword inside another word, nor a text without one', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const r = await create(acc, { trigger: { type: 'keywords', keywords: ['hours'] } });
      for (const text of ['shoursx', 'what time do you open', 'hour', '']) {
        const from = sender();
        const got = await inbound({ from, to, text });
        assert.equal(got.autoresponse, undefined, text);
        assert.equal((await outgoingTo(acc, from)).length, 0, text);
      }
      assert.equal((await get(acc, r.id)).stats.triggered, 0);
    });

    it('matches a right-to-left keyword inside an Arabic sentence', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const r = await create(acc, { trigger: { type: 'keywords', keywords: ['ساعات'] } });
      const got = await inbound({ from: sender(), to, text: '\u200fما هي ساعات العمل؟' });
      assert.equal(got.autoresponse?.autoresponderId, r.id);
      assert.ok(got.autoresponse.messageId);
    });

    it('answers any text arriving outside the group’s office hours, and none inside them', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const g = await defaultGroup(acc);
      await setOfficeHours(acc, g.id, everyDayNineToFive(NIGHT_ZONE()));
      const r = await create(acc, {
        trigger: { type: 'outsideOfficeHours' },
        group: { id: g.id },
        message: { message: 'We are closed; back at 9.' },
      });
      const night = await inbound({ from: sender(), to, text: 'anyone there?' });
      assert.equal(night.autoresponse?.autoresponderId, r.id);
      assert.equal((await message(acc, night.autoresponse.messageId)).message, 'We are closed; back at 9.');

      await setOfficeHours(acc, g.id, everyDayNineToFive(NOON_ZONE()));
      const from = sender();
      const noon = await inbound({ from, to, text: 'anyone there?' });
      assert.equal(noon.autoresponse, undefined);
      assert.equal((await outgoingTo(acc, from)).length, 0);

      // Office hours turned off: "outside" never holds, so nothing is answered.
      await setOfficeHours(acc, g.id, { ...everyDayNineToFive(NIGHT_ZONE()), active: false });
      assert.equal((await inbound({ from: sender(), to, text: 'hello?' })).autoresponse, undefined);
    });

    it('lets a keyword autoresponder win over an office-hours one, and the higher priority win among keywords', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const g = await defaultGroup(acc);
      await setOfficeHours(acc, g.id, everyDayNineToFive(NIGHT_ZONE()));
      const closed = await create(acc, {
        trigger: { type: 'outsideOfficeHours' },
        group: { id: g.id },
        priority: 1000,
      });
      const low = await create(acc, { trigger: { type: 'keywords', keywords: ['price'] } });
      const high = await create(acc, {
        trigger: { type: 'keywords', keywords: ['price', 'cost'] },
        priority: 10,
      });
      const got = await inbound({ from: sender(), to, text: 'What is the price?' });
      assert.equal(got.autoresponse.autoresponderId, high.id);
      const other = await inbound({ from: sender(), to, text: 'good evening' });
      assert.equal(other.autoresponse.autoresponderId, closed.id);
      const from = sender();
      await inbound({ from, to, text: 'price' });
      assert.equal((await outgoingTo(acc, from)).length, 1, 'one inbound text, one answer');
      assert.equal((await get(acc, low.id)).stats.triggered, 0);
    });

    it('lets STOP, START and HELP win: only their confirmation is sent', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const g = await defaultGroup(acc);
      await setOfficeHours(acc, g.id, everyDayNineToFive(NIGHT_ZONE()));
      const r = await create(acc, { trigger: { type: 'outsideOfficeHours' }, group: { id: g.id } });
      for (const text of ['HELP', 'Stop.']) {
        const from = sender();
        const got = await inbound({ from, to, text });
        assert.ok(got.keyword, text);
        assert.equal(got.autoresponse, undefined, text);
        const sent = await outgoingTo(acc, from);
        assert.equal(sent.length, 1, text);
        assert.equal(sent[0].system, true, `${text}: the compliance confirmation`);
      }
      // A request to stop inside a sentence is not a keyword, but is not auto-answered either.
      const from = sender();
      assert.equal((await inbound({ from, to, text: 'please stop texting me' })).autoresponse, undefined);
      assert.equal((await outgoingTo(acc, from)).length, 0);
      assert.equal((await get(acc, r.id)).stats.triggered, 0);
    });

    it('never answers an opted-out or blocked contact', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      await create(acc, { trigger: { type: 'keywords', keywords: ['hours'] } });
      const quitter = sender();
      await inbound({ from: quitter, to, text: 'STOP' });
      assert.equal((await inbound({ from: quitter, to, text: 'hours' })).autoresponse, undefined);
      assert.equal((await outgoingTo(acc, quitter)).length, 1, 'only the opt-out confirmation');

      const blocked = sender();
      const first = await inbound({ from: blocked, to, text: 'hello' });
      const { rows } = await svc.db.query(
        'SELECT contact_id FROM messages WHERE account_id = $1 AND id = $2',
        [acc.accountId, first.messageId],
      );
      const res = await call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}/contacts/${rows[0].contact_id}`, {
        auth: acc.auth,
        json: { blocked: true },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await inbound({ from: blocked, to, text: 'hours' })).autoresponse, undefined);
      assert.equal((await outgoingTo(acc, blocked)).length, 0);
    });

    it('answers one contact once within the window, and again after it', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const r = await create(acc, { trigger: { type: 'keywords', keywords: ['hours'] } });
      const from = sender();
      assert.ok((await inbound({ from, to, text: 'hours' })).autoresponse.messageId);
      const again = await inbound({ from, to, text: 'hours??' });
      assert.deepEqual(again.autoresponse, { autoresponderId: r.id, reason: 'window' });
      assert.equal((await outgoingTo(acc, from)).length, 1);
      // Another contact is answered meanwhile.
      assert.ok((await inbound({ from: sender(), to, text: 'hours' })).autoresponse.messageId);

      // The window (60 minutes by default) has passed for the first contact.
      await svc.db.query(
        `UPDATE autoresponder_marks SET replied_at = replied_at - interval '61 minutes'
          WHERE account_id = $1 AND autoresponder_id = $2`,
        [acc.accountId, r.id],
      );
      assert.ok((await inbound({ from, to, text: 'hours' })).autoresponse.messageId);
      assert.equal((await outgoingTo(acc, from)).length, 2);
      const stats = (await get(acc, r.id)).stats;
      assert.deepEqual([stats.triggered, stats.repliesSent, stats.suppressed], [4, 3, 1]);
    });

    it('answers only one of several texts from one contact arriving together', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const r = await create(acc, { trigger: { type: 'keywords', keywords: ['hours'] } });
      const from = sender();
      await inbound({ from, to, text: 'hello' });
      const all = await Promise.all(Array.from({ length: 6 }, () => inbound({ from, to, text: 'hours?' })));
      assert.equal(all.filter((x) => x.autoresponse?.messageId).length, 1);
      assert.equal(all.filter((x) => x.autoresponse?.reason === 'window').length, 5);
      assert.equal((await outgoingTo(acc, from)).length, 1);
      const stats = (await get(acc, r.id)).stats;
      assert.deepEqual([stats.triggered, stats.repliesSent, stats.suppressed], [6, 1, 5]);
    });

    it('does nothing when inactive, for a carrier retry, or for a number outside its group', async () => {
      const acc = await svc.newAccount();
      const to = await ourNumber(acc);
      const r = await create(acc, { trigger: { type: 'keywords', keywords: ['hours'] }, active: false });
      assert.equal((await inbound({ from: sender(), to, text: 'hours' })).autoresponse, undefined);

      const empty = body(
        await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/groups`, {
          auth: acc.auth,
          json: { name: 'No numbers' },
        }),
      ).data;
      await call(svc.api, 'PUT', path(acc, `/${r.id}`), {
        auth: acc.auth,
        json: { active: true, group: { id: empty.id } },
      });
      assert.equal((await inbound({ from: sender(), to, text: 'hours' })).autoresponse, undefined);

      await call(svc.api, 'PUT', path(acc, `/${r.id}`), { auth: acc.auth, json: { group: null } });
      const from = sender();
      const id = `RETRY-${seq++}`;
      assert.ok((await inbound({ from, to, text: 'hours', id })).autoresponse.messageId);
      await svc.db.query('DELETE FROM autoresponder_marks WHERE account_id = $1', [acc.accountId]);
      assert.equal((await inbound({ from, to, text: 'hours', id })).autoresponse, undefined, 'retry');
      assert.equal((await outgoingTo(acc, from)).length, 1);
    });

    it('stores the inbound text but sends no reply when the balance cannot cover it', async () => {
      const acc = await svc.newAccount({ balance: 0 });
      const to = await ourNumber(acc);
      const r = await create(acc, { trigger: { type: 'keywords', keywords: ['hours'] } });
      const from = sender();
      const got = await inbound({ from, to, text: 'hours' });
      assert.deepEqual(got.autoresponse, { autoresponderId: r.id, reason: 'not-sent' });
      const stored = await message(acc, got.messageId);
      assert.equal(stored.message, 'hours');
      assert.equal((await outgoingTo(acc, from)).length, 0);
      assert.equal((await get(acc, r.id)).stats.suppressed, 1);
    });
  });

  describe('with quiet hours on', () => {
    let quiet: TestService;
    before(async () => {
      quiet = await startTestService({ quietHoursEnabled: true, rateLimitPerMinute: 1_000_000 });
    });
    after(() => quiet.close());

    /** Mobile numbers around the world: at any instant at least one is in its quiet hours (21:00–8:00). */
    const AROUND_THE_WORLD = [
      '+18087654321',
      '+12018100001',
      '+5511987654321',
      '+4915112345678',
      '+919812345678',
      '+819012345678',
      '+61412345678',
    ];

    it('does not hold a reply to an inbound text, even in the recipient’s quiet hours', async () => {
      const untils = await Promise.all(
        AROUND_THE_WORLD.map(async (n) => {
          const { rows } = await quiet.db.query<{ until: Date | null }>(
            `SELECT sparrow_quiet_until(pz.zones, 'UTC', now()) AS until
               FROM (SELECT $1::text AS n) x LEFT JOIN LATERAL ${numberZonesLateral('x.n')} pz ON true`,
            [n],
          );
          return rows[0].until;
        }),
      );
      const at = untils.findIndex((u) => u !== null);
      assert.ok(at >= 0, 'one of the numbers is in its quiet hours now');
      const from = AROUND_THE_WORLD[at];

      const acc = await quiet.newAccount();
      const groups = body(
        await call(quiet.api, 'GET', `/v1/accounts/${acc.accountId}/groups`, { auth: acc.auth }),
      ).data;
      const to = groups[0].phoneNumbers[0].number;
      const created = await call(quiet.api, 'POST', `/v1/accounts/${acc.accountId}/autoresponders`, {
        auth: acc.auth,
        json: keywordsBody(),
      });
      assert.equal(created.statusCode, 201, created.body);
      const res = await call(quiet.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from, to, text: 'hours?' },
      });
      const replyId = body(res).data.autoresponse.messageId;
      assert.ok(replyId, res.body);
      const { rows } = await quiet.db.query(
        'SELECT status, not_before FROM messages WHERE account_id = $1 AND id = $2',
        [acc.accountId, replyId],
      );
      assert.equal(rows[0].status, 'queued');
      assert.equal(rows[0].not_before, null, 'not held until morning');
    });
  });
});
