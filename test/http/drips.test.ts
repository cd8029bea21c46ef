import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { dripHelpers, NOT_THERE, startDripService } from './drips-support.ts';

describe('drip campaigns', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const { base, drips, newList, dripBody, create, get } = dripHelpers(() => svc);

  before(async () => {
    ({ svc, a, b } = await startDripService());
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/dripcampaigns', () => {
    it('creates an inactive drip with its trigger list, ordered messages (ids, zero stats) and audit stamps', async () => {
      const listId = await newList(a);
      const d = await create(a, dripBody(listId, { maxDuration: 30 }));
      assert.ok(d.id);
      assert.equal(d.active, false);
      assert.equal(d.description, 'Welcome series');
      assert.equal(d.trigger.type, 'list');
      assert.equal(d.trigger.list.id, listId);
      assert.deepEqual(d.trigger.delay, { days: 1, hours: 0, minutes: 0 });
      assert.equal(d.trigger.group, undefined);
      assert.equal(d.maxDuration, 30);
      assert.deepEqual(
        d.messages.map((m: { message: string; delay: object }) => [m.message, m.delay]),
        [
          ['Welcome {{{firstName}}}', { days: 0, hours: 0, minutes: 0 }],
          ['Day two', { days: 1, hours: 2, minutes: 0 }],
        ],
      );
      assert.ok(d.messages.every((m: { id: string }) => typeof m.id === 'string'));
      const zero = { entered: 0, active: 0, errored: 0, noAction: 0, optOut: 0, engaged: 0 };
      assert.deepEqual(d.stats, zero);
      assert.deepEqual(d.messages[0].stats, zero);
      assert.equal(d.created.by.source, 'api');
      assert.equal(d.workflowId, undefined);
    });

    it('accepts trigger.listId, a sender group, and keyword and contact-created triggers', async () => {
      const listId = await newList(a);
      const groups = body(await call(svc.api, 'GET', `${base(a)}/groups`, { auth: a.auth })).data;
      const d = await create(a, {
        ...dripBody(''),
        trigger: { type: 'list', listId, groups: [{ id: groups[0].id, name: 'ignored' }] },
      });
      assert.equal(d.trigger.list.id, listId);
      assert.equal(d.trigger.group.id, groups[0].id);
      assert.equal(d.trigger.groups[0].id, groups[0].id);

      const k = await create(a, { ...dripBody(''), trigger: { type: 'keyword', message: ' Join ' } });
      assert.equal(k.trigger.message, 'JOIN');
      assert.equal(k.trigger.list, undefined);
      // In an account of its own: an active contact-created drip would enter every contact created here.
      const other = await svc.newAccount();
      const c = await create(other, {
        ...dripBody(''),
        trigger: { type: 'contact-created' },
        activate: true,
      });
      assert.equal(c.trigger.type, 'contact-created');
      assert.equal(c.active, true);
    });

    it('refuses invalid input with 400 and writes nothing', async () => {
      const listId = await newList(a);
      const before = body(await call(svc.api, 'GET', drips(a, '?limit=100'), { auth: a.auth })).pagination
        .totalCount;
      const bad: [object, string][] = [
        [{ ...dripBody(listId), messages: [] }, 'VAL-001'],
        [{ ...dripBody(listId), messages: [{ message: '' }] }, 'VAL-001'],
        [{ ...dripBody(listId), messages: [{ message: 'x', delay: { days: -1 } }] }, 'VAL-001'],
        [{ ...dripBody(listId), messages: [{ message: 'x', delay: { hours: 1.5 } }] }, 'VAL-001'],
        [
          {
            ...dripBody(listId),
            trigger: { type: 'list', list: { id: listId }, delay: { minutes: 'soon' } },
          },
          'VAL-001',
        ],
        [{ ...dripBody(listId), trigger: { type: 'sometimes' } }, 'VAL-001'],
        [{ ...dripBody(listId), name: '' }, 'VAL-001'],
        [{ ...dripBody(listId), maxDuration: -1 }, 'VAL-001'],
        [{ messages: [{ message: 'x' }], trigger: { type: 'contact-created' } }, 'VAL-001'],
        [{ ...dripBody(listId), trigger: { type: 'list' } }, 'DRIP-004'],
        [{ ...dripBody(listId), trigger: { type: 'keyword' } }, 'DRIP-004'],
        [{ ...dripBody(listId), trigger: { type: 'keyword', message: 'two words' } }, 'DRIP-004'],
        [{ ...dripBody(listId), trigger: { type: 'keyword', message: 'stop' } }, 'DRIP-004'],
      ];
      for (const [json, code] of bad) {
        const res = await call(svc.api, 'POST', drips(a), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, `${JSON.stringify(json)} → ${res.body}`);
        assert.equal(body(res).success, false);
        assert.equal(body(res).error.code, code, JSON.stringify(json));
      }
      const after = body(await call(svc.api, 'GET', drips(a, '?limit=100'), { auth: a.auth })).pagination
        .totalCount;
      assert.equal(after, before);
    });

    it('answers 404 for an unknown list or group (another account’s too), and 400 for a smart list', async () => {
      const theirs = await newList(b);
      for (const listId of [NOT_THERE, theirs, 'nope']) {
        const res = await call(svc.api, 'POST', drips(a), { auth: a.auth, json: dripBody(listId) });
        assert.equal(res.statusCode, 404, `${listId} → ${res.body}`);
        assert.equal(body(res).error.code, 'LIST-001');
      }
      const res = await call(svc.api, 'POST', drips(a), {
        auth: a.auth,
        json: {
          ...dripBody(await newList(a)),
          trigger: { type: 'contact-created', groups: [{ id: NOT_THERE }] },
        },
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'GRP-001');
      const smart = await newList(a, { filter: { q: 'x' } });
      const s = await call(svc.api, 'POST', drips(a), { auth: a.auth, json: dripBody(smart) });
      assert.equal(s.statusCode, 400, s.body);
      assert.equal(body(s).error.code, 'DRIP-004');
    });
  });

  describe('GET /v1/accounts/:accountId/dripcampaigns', () => {
    it('lists newest first with `active`, stats and pagination', async () => {
      const c = await svc.newAccount();
      const listId = await newList(c);
      const first = await create(c, dripBody(listId));
      const second = await create(c, dripBody(listId, { activate: true }));
      const res = await call(svc.api, 'GET', drips(c, '?limit=1'), { auth: c.auth });
      assert.equal(res.statusCode, 200);
      const page1 = body(res);
      assert.deepEqual(page1.pagination, { limit: 1, offset: 0, hasNext: true, totalCount: 2 });
      assert.equal(page1.data[0].id, second.id);
      assert.equal(page1.data[0].active, true);
      const page2 = body(await call(svc.api, 'GET', drips(c, '?limit=1&offset=1'), { auth: c.auth }));
      assert.equal(page2.data[0].id, first.id);
      assert.equal(page2.data[0].active, false);
      assert.equal(page2.pagination.hasNext, false);
      const named = body(
        await call(svc.api, 'GET', drips(c, `?name=${encodeURIComponent(first.name)}`), { auth: c.auth }),
      );
      assert.deepEqual(
        named.data.map((d: { id: string }) => d.id),
        [first.id],
      );
    });

    it('refuses a bad page with 400 and shows no other account’s drips', async () => {
      assert.equal((await call(svc.api, 'GET', drips(a, '?limit=0'), { auth: a.auth })).statusCode, 400);
      assert.equal((await call(svc.api, 'GET', drips(a, '?offset=-1'), { auth: a.auth })).statusCode, 400);
      const mine = await create(b, dripBody(await newList(b)));
      const list = body(await call(svc.api, 'GET', drips(a, '?limit=100'), { auth: a.auth })).data;
      assert.ok(!list.some((d: { id: string }) => d.id === mine.id));
    });
  });

  describe('GET / PUT / DELETE /v1/accounts/:accountId/dripcampaigns/:dripCampaignId', () => {
    it('updates the given fields, keeps named message ids, ignores stats, and deletes', async () => {
      const listId = await newList(a);
      const d = await create(a, dripBody(listId));
      const keepId = d.messages[1].id;
      const res = await call(svc.api, 'PUT', drips(a, `/${d.id}`), {
        auth: a.auth,
        json: {
          name: 'Renamed',
          stats: { entered: 99 },
          trigger: { delay: { minutes: 30 } },
          messages: [
            { id: keepId, message: 'Was day two', delay: { hours: 3 }, stats: { engaged: 5 } },
            { message: 'Brand new', media: [{ url: 'https://example.com/a.png', type: 'image/png' }] },
          ],
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      const u = body(res).data;
      assert.equal(u.name, 'Renamed');
      assert.equal(u.description, 'Welcome series');
      assert.equal(u.trigger.type, 'list');
      assert.equal(u.trigger.list.id, listId);
      assert.deepEqual(u.trigger.delay, { days: 0, hours: 0, minutes: 30 });
      assert.equal(u.stats.entered, 0);
      assert.equal(u.messages.length, 2);
      assert.equal(u.messages[0].id, keepId);
      assert.equal(u.messages[0].message, 'Was day two');
      assert.equal(u.messages[0].stats.engaged, 0);
      assert.notEqual(u.messages[1].id, d.messages[0].id);
      assert.equal(u.messages[1].media[0].url, 'https://example.com/a.png');
      assert.deepEqual(await get(a, d.id), u);

      const del = await call(svc.api, 'DELETE', drips(a, `/${d.id}`), { auth: a.auth });
      assert.equal(del.statusCode, 200);
      assert.deepEqual(body(del), { success: true });
      const gone = await call(svc.api, 'GET', drips(a, `/${d.id}`), { auth: a.auth });
      assert.equal(gone.statusCode, 404);
      assert.equal(body(gone).error.code, 'DRIP-001');
    });

    it('changes the trigger type with what the new type needs, and refuses bad updates with 4xx', async () => {
      const d = await create(a, dripBody(await newList(a)));
      const k = await call(svc.api, 'PUT', drips(a, `/${d.id}`), {
        auth: a.auth,
        json: { trigger: { type: 'keyword', message: 'hello' } },
      });
      assert.equal(k.statusCode, 200, k.body);
      assert.equal(body(k).data.trigger.list, undefined);
      assert.equal(body(k).data.trigger.message, 'HELLO');
      const bad: [object, number, string][] = [
        [{ messages: [] }, 400, 'VAL-001'],
        [{ trigger: { type: 'list' } }, 400, 'DRIP-004'],
        [{ trigger: { delay: { days: 1000 } } }, 400, 'VAL-001'],
        [{ trigger: { type: 'list', listId: NOT_THERE } }, 404, 'LIST-001'],
        [{ trigger: { groups: [{ id: NOT_THERE }] } }, 404, 'GRP-001'],
      ];
      for (const [json, status, code] of bad) {
        const res = await call(svc.api, 'PUT', drips(a, `/${d.id}`), { auth: a.auth, json });
        assert.equal(res.statusCode, status, `${JSON.stringify(json)} → ${res.body}`);
        assert.equal(body(res).error.code, code);
      }
      assert.equal((await get(a, d.id)).trigger.message, 'HELLO');
    });
  });

  describe('auth and account scope on every drip endpoint', () => {
    it('answers 401 without a token or with a bad one, and 404 for another account’s drip', async () => {
      const theirs = await create(b, dripBody(await newList(b)));
      const ops: [string, (acc: TestAccount, id: string) => string, object?][] = [
        ['POST', (acc) => drips(acc), dripBody(NOT_THERE)],
        ['GET', (acc) => drips(acc)],
        ['GET', (acc, id) => drips(acc, `/${id}`)],
        ['PUT', (acc, id) => drips(acc, `/${id}`), { name: 'x' }],
        ['DELETE', (acc, id) => drips(acc, `/${id}`)],
        ['GET', (acc, id) => drips(acc, `/${id}/executions`)],
        ['PUT', (acc, id) => drips(acc, `/${id}/deactivate`)],
        ['PUT', (acc, id) => drips(acc, `/${id}/migrate`)],
      ];
      for (const [method, url, json] of ops) {
        const u = url(a, theirs.id);
        const none = await call(svc.api, method as 'GET', u, { json });
        assert.equal(none.statusCode, 401, `${method} ${u}`);
        assert.equal(body(none).error.code, 'AUTH-001');
        const badToken = await call(svc.api, method as 'GET', u, {
          json,
          auth: { authorization: 'Bearer nope' },
        });
        assert.equal(badToken.statusCode, 401);
        assert.equal(body(badToken).error.code, 'AUTH-002');
        // Another account's token on this account's path: 403.
        const other = await call(svc.api, method as 'GET', u, { json, auth: b.auth });
        assert.equal(other.statusCode, 403, `${method} ${u}`);
      }
      // Another account's drip through our own path: 404, and it is untouched.
      for (const [method, url, json] of ops.slice(2)) {
        const res = await call(svc.api, method as 'GET', url(a, theirs.id), { auth: a.auth, json });
        assert.equal(res.statusCode, 404, `${method} ${url(a, theirs.id)} → ${res.body}`);
        assert.equal(body(res).error.code, 'DRIP-001');
        const notId = await call(svc.api, method as 'GET', url(a, 'not-an-id'), { auth: a.auth, json });
        assert.equal(notId.statusCode, 404);
      }
      const still = await get(b, theirs.id);
      assert.equal(still.name, theirs.name);
      assert.equal(still.workflowId, undefined);
    });
  });
});
