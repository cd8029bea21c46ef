import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listContactIdsQuery } from '../../src/db/queries/lists.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('lists', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  const nextMobile = () => `+1201${String(4_000_000 + seq++).padStart(7, '0')}`;
  const lists = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/lists${rest}`;
  const newList = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', lists(acc), {
      auth: acc.auth,
      json: { name: `List ${seq++}`, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const newContact = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/contacts`, {
      auth: acc.auth,
      json: { mobile: nextMobile(), ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0];
  };
  const add = (acc: TestAccount, listId: string, contactIds: string[]) =>
    call(svc.api, 'POST', lists(acc, `/${listId}/contacts`), { auth: acc.auth, json: { contactIds } });
  const memberNames = async (acc: TestAccount, listId: string, query = '') => {
    const res = await call(svc.api, 'GET', lists(acc, `/${listId}/contacts${query}`), { auth: acc.auth });
    assert.equal(res.statusCode, 200, res.body);
    return body(res)
      .data.map((c: { firstName: string }) => c.firstName)
      .sort();
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/lists', () => {
    it('creates a list in the List shape, size 0', async () => {
      const res = await call(svc.api, 'POST', lists(a), {
        auth: a.auth,
        json: {
          name: 'Newsletter',
          keyword: 'NEWS',
          doubleOptIn: { enabled: true, prompt: 'Reply YES to join' },
          optInConfirmation: 'Welcome!',
          source: { id: 'x1', integration: 'csv' },
        },
      });
      assert.equal(res.statusCode, 201);
      const l = body(res).data;
      assert.equal(l.name, 'Newsletter');
      assert.equal(l.keyword, 'NEWS');
      assert.deepEqual(l.doubleOptIn, { enabled: true, prompt: 'Reply YES to join' });
      assert.equal(l.optInConfirmation, 'Welcome!');
      assert.deepEqual(l.source, { id: 'x1', integration: 'csv' });
      assert.equal(l.filter, undefined);
      assert.equal(l.size, 0);
      assert.match(l.created.at, /Z$/);
    });

    it('rejects a list without a name with 400', async () => {
      const res = await call(svc.api, 'POST', lists(a), { auth: a.auth, json: { keyword: 'X' } });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it('rejects an unknown attribute comparator with 400', async () => {
      const res = await call(svc.api, 'POST', lists(a), {
        auth: a.auth,
        json: { name: 'Bad', filter: { attributes: [{ attribute: 'x', comparator: '~', value: ['1'] }] } },
      });
      assert.equal(res.statusCode, 400);
    });

    it("rejects a filter naming another account's list with 400 LIST-003", async () => {
      const theirs = await newList(b);
      const res = await call(svc.api, 'POST', lists(a), {
        auth: a.auth,
        json: { name: 'Smart', filter: { list: theirs.id } },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'LIST-003');
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'POST', lists(a), { json: { name: 'X' } })).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      assert.equal(
        (await call(svc.api, 'POST', lists(b), { auth: a.auth, json: { name: 'X' } })).statusCode,
        403,
      );
    });
  });

  describe('GET /v1/accounts/:accountId/lists', () => {
    it('answers the lists newest first with sizes, pagination and a name filter', async () => {
      const acc = await svc.newAccount();
      const l1 = await newList(acc, { name: 'Alpha customers' });
      await newList(acc, { name: 'Beta customers' });
      const c = await newContact(acc);
      await add(acc, l1.id, [c.id]);
      const res = await call(svc.api, 'GET', lists(acc, '?limit=1'), { auth: acc.auth });
      assert.equal(res.statusCode, 200);
      const r = body(res);
      assert.equal(r.data[0].name, 'Beta customers');
      assert.deepEqual(r.pagination, { limit: 1, offset: 0, hasNext: true, totalCount: 2 });
      const alpha = body(await call(svc.api, 'GET', lists(acc, '?name=ALPHA'), { auth: acc.auth }));
      assert.deepEqual(
        alpha.data.map((l: { name: string; size: number }) => [l.name, l.size]),
        [['Alpha customers', 1]],
      );
    });

    it('rejects limit 101 with 400', async () => {
      assert.equal((await call(svc.api, 'GET', lists(a, '?limit=101'), { auth: a.auth })).statusCode, 400);
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'GET', lists(a))).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'GET', lists(b), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('GET/PUT/DELETE /v1/accounts/:accountId/lists/:listId', () => {
    it('gets a list', async () => {
      const l = await newList(a);
      const res = await call(svc.api, 'GET', lists(a, `/${l.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data, l);
    });

    it('updates the given fields only', async () => {
      const l = await newList(a, { keyword: 'KEEP' });
      const res = await call(svc.api, 'PUT', lists(a, `/${l.id}`), {
        auth: a.auth,
        json: { name: 'Renamed', doubleOptIn: { enabled: true } },
      });
      assert.equal(res.statusCode, 200);
      const u = body(res).data;
      assert.equal(u.name, 'Renamed');
      assert.equal(u.keyword, 'KEEP');
      assert.equal(u.doubleOptIn.enabled, true);
    });

    it('rejects an empty name on update with 400', async () => {
      const l = await newList(a);
      assert.equal(
        (await call(svc.api, 'PUT', lists(a, `/${l.id}`), { auth: a.auth, json: { name: '' } })).statusCode,
        400,
      );
    });

    it('deletes a list and its memberships, keeping the contacts', async () => {
      const l = await newList(a);
      const c = await newContact(a);
      await add(a, l.id, [c.id]);
      const res = await call(svc.api, 'DELETE', lists(a, `/${l.id}`), { auth: a.auth });
      assert.deepEqual([res.statusCode, body(res)], [200, { success: true }]);
      assert.equal((await call(svc.api, 'GET', lists(a, `/${l.id}`), { auth: a.auth })).statusCode, 404);
      const contact = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts/${c.id}`, { auth: a.auth }),
      ).data;
      assert.deepEqual(contact.lists, []);
    });

    it("answers 404 LIST-001 for another account's list on GET, PUT and DELETE, leaving it alone", async () => {
      const theirs = await newList(b, { name: 'Theirs' });
      for (const [method, json] of [
        ['GET', undefined],
        ['PUT', { name: 'Mine' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await call(svc.api, method, lists(a, `/${theirs.id}`), { auth: a.auth, json });
        assert.equal(res.statusCode, 404, method);
        assert.equal(body(res).error.code, 'LIST-001');
      }
      assert.equal(
        body(await call(svc.api, 'GET', lists(b, `/${theirs.id}`), { auth: b.auth })).data.name,
        'Theirs',
      );
    });

    it('answers 404 for a list id that is not an id', async () => {
      assert.equal((await call(svc.api, 'GET', lists(a, '/nope'), { auth: a.auth })).statusCode, 404);
    });

    it('rejects calls without a token with 401', async () => {
      const l = await newList(a);
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await call(
          svc.api,
          method,
          lists(a, `/${l.id}`),
          method === 'PUT' ? { json: { name: 'x' } } : {},
        );
        assert.equal(res.statusCode, 401, method);
      }
    });
  });

  describe('POST /v1/accounts/:accountId/lists/:listId/contacts', () => {
    it('adds contacts, counting added, already members and not found; contacts show the membership', async () => {
      const l = await newList(a, { name: 'Members' });
      const c1 = await newContact(a);
      const c2 = await newContact(a);
      const foreign = await newContact(b);
      assert.deepEqual(body(await add(a, l.id, [c1.id])).data, {
        submitted: 1,
        added: 1,
        alreadyMember: 0,
        notFound: 0,
      });
      const res = await add(a, l.id, [
        c1.id,
        c2.id,
        foreign.id,
        'garbage',
        '0190a000-0000-7000-8000-000000000000',
      ]);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data, { submitted: 5, added: 1, alreadyMember: 1, notFound: 3 });
      const contact = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts/${c2.id}`, { auth: a.auth }),
      ).data;
      assert.equal(contact.lists.length, 1);
      assert.equal(contact.lists[0].id, l.id);
      assert.equal(contact.lists[0].name, 'Members');
      assert.match(contact.lists[0].optIn, /Z$/);
      assert.equal(contact.lists[0].optOut, undefined);
      assert.equal(body(await call(svc.api, 'GET', lists(a, `/${l.id}`), { auth: a.auth })).data.size, 2);
      const theirs = body(
        await call(svc.api, 'GET', `/v1/accounts/${b.accountId}/contacts/${foreign.id}`, { auth: b.auth }),
      ).data;
      assert.deepEqual(theirs.lists, []);
    });

    it('leaves the membership opt-in empty while a double opt-in is pending', async () => {
      const l = await newList(a, { doubleOptIn: { enabled: true, prompt: 'Reply YES' } });
      const c = await newContact(a);
      await add(a, l.id, [c.id]);
      const contact = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts/${c.id}`, { auth: a.auth }),
      ).data;
      assert.equal(contact.lists[0].optIn, undefined);
    });

    it('rejects an empty contactIds with 400', async () => {
      const l = await newList(a);
      const res = await add(a, l.id, []);
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it('refuses to add to a smart list with 409 LIST-002', async () => {
      const l = await newList(a, { filter: { optIn: true } });
      const c = await newContact(a);
      const res = await add(a, l.id, [c.id]);
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'LIST-002');
    });

    it("answers 404 for another account's list", async () => {
      const theirs = await newList(b);
      const c = await newContact(a);
      assert.equal((await add(a, theirs.id, [c.id])).statusCode, 404);
    });

    it('rejects a call without a token with 401', async () => {
      const l = await newList(a);
      assert.equal(
        (await call(svc.api, 'POST', lists(a, `/${l.id}/contacts`), { json: { contactIds: [] } })).statusCode,
        401,
      );
    });
  });

  describe('DELETE /v1/accounts/:accountId/lists/:listId/contacts/:contactId', () => {
    it('removes the contact from the list, keeping the contact', async () => {
      const l = await newList(a);
      const c = await newContact(a);
      await add(a, l.id, [c.id]);
      const res = await call(svc.api, 'DELETE', lists(a, `/${l.id}/contacts/${c.id}`), { auth: a.auth });
      assert.deepEqual([res.statusCode, body(res)], [200, { success: true }]);
      assert.equal(body(await call(svc.api, 'GET', lists(a, `/${l.id}`), { auth: a.auth })).data.size, 0);
      assert.equal(
        (await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts/${c.id}`, { auth: a.auth }))
          .statusCode,
        200,
      );
    });

    it('answers 404 CONT-002 for a contact that is not a member', async () => {
      const l = await newList(a);
      const c = await newContact(a);
      const res = await call(svc.api, 'DELETE', lists(a, `/${l.id}/contacts/${c.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'CONT-002');
    });

    it("answers 404 for another account's list and leaves its member", async () => {
      const theirs = await newList(b);
      const c = await newContact(b);
      await add(b, theirs.id, [c.id]);
      assert.equal(
        (await call(svc.api, 'DELETE', lists(a, `/${theirs.id}/contacts/${c.id}`), { auth: a.auth }))
          .statusCode,
        404,
      );
      assert.equal(
        body(await call(svc.api, 'GET', lists(b, `/${theirs.id}`), { auth: b.auth })).data.size,
        1,
      );
    });

    it('rejects a call without a token with 401', async () => {
      const l = await newList(a);
      const c = await newContact(a);
      assert.equal((await call(svc.api, 'DELETE', lists(a, `/${l.id}/contacts/${c.id}`))).statusCode, 401);
    });
  });

  describe('GET /v1/accounts/:accountId/lists/:listId/contacts', () => {
    it('pages the members of a static list, with contact filters', async () => {
      const l = await newList(a);
      const ids = [];
      for (const firstName of ['Ann', 'Bob', 'Cid']) ids.push((await newContact(a, { firstName })).id);
      await newContact(a, { firstName: 'Outsider' });
      await add(a, l.id, ids);
      const res = await call(svc.api, 'GET', lists(a, `/${l.id}/contacts?limit=2`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).pagination, { limit: 2, offset: 0, hasNext: true, totalCount: 3 });
      assert.deepEqual(await memberNames(a, l.id), ['Ann', 'Bob', 'Cid']);
      assert.deepEqual(await memberNames(a, l.id, '?firstName=b'), ['Bob']);
    });

    it('rejects offset -1 with 400', async () => {
      const l = await newList(a);
      assert.equal(
        (await call(svc.api, 'GET', lists(a, `/${l.id}/contacts?offset=-1`), { auth: a.auth })).statusCode,
        400,
      );
    });

    it("answers 404 for another account's list", async () => {
      const theirs = await newList(b);
      assert.equal(
        (await call(svc.api, 'GET', lists(a, `/${theirs.id}/contacts`), { auth: a.auth })).statusCode,
        404,
      );
    });

    it('rejects a call without a token with 401', async () => {
      const l = await newList(a);
      assert.equal((await call(svc.api, 'GET', lists(a, `/${l.id}/contacts`))).statusCode, 401);
    });
  });

  describe('smart lists', () => {
    let acc: TestAccount;
    let vips: { id: string };
    before(async () => {
      acc = await svc.newAccount();
      vips = await newList(acc, { name: 'VIPs' });
      const people = [
        { firstName: 'Ann', attributes: { age: '9', city: 'Paris' }, optIn: true },
        { firstName: 'Bob', attributes: { age: '10', city: 'paris' }, blocked: true },
        { firstName: 'Cid', attributes: { age: '100', city: 'Rome' }, optIn: true },
        { firstName: 'Dee', attributes: { city: 'Oslo' } },
      ];
      const made = [];
      for (const p of people) made.push(await newContact(acc, p));
      await add(acc, vips.id, [made[0].id, made[2].id]);
      await newContact(b, { firstName: 'Foreign', attributes: { age: '50' }, optIn: true });
    });
    const smart = async (filter: object) => (await newList(acc, { filter })).id;

    it('compares numbers numerically and text case-insensitively', async () => {
      assert.deepEqual(
        await memberNames(
          acc,
          await smart({ attributes: [{ attribute: 'age', comparator: '>', value: ['9'] }] }),
        ),
        ['Bob', 'Cid'],
      );
      assert.deepEqual(
        await memberNames(
          acc,
          await smart({ attributes: [{ attribute: 'age', comparator: '<=', value: ['10'] }] }),
        ),
        ['Ann', 'Bob'],
      );
      assert.deepEqual(
        await memberNames(
          acc,
          await smart({ attributes: [{ attribute: 'city', comparator: '=', value: ['PARIS', 'rome'] }] }),
        ),
        ['Ann', 'Bob', 'Cid'],
      );
      assert.deepEqual(
        await memberNames(
          acc,
          await smart({ attributes: [{ attribute: 'city', comparator: '<', value: ['p'] }] }),
        ),
        ['Dee'],
      );
    });

    it('treats a missing attribute as not equal', async () => {
      assert.deepEqual(
        await memberNames(
          acc,
          await smart({ attributes: [{ attribute: 'age', comparator: '!=', value: ['9', '10'] }] }),
        ),
        ['Cid', 'Dee'],
      );
      assert.deepEqual(
        await memberNames(
          acc,
          await smart({ attributes: [{ attribute: 'age', comparator: '>=', value: ['0'] }] }),
        ),
        ['Ann', 'Bob', 'Cid'],
      );
    });

    it('filters on blocked, unblocked, optIn, q and membership of another list', async () => {
      assert.deepEqual(await memberNames(acc, await smart({ blocked: true })), ['Bob']);
      assert.deepEqual(await memberNames(acc, await smart({ unblocked: true })), ['Ann', 'Cid', 'Dee']);
      assert.deepEqual(await memberNames(acc, await smart({ optIn: true })), ['Ann', 'Cid']);
      assert.deepEqual(await memberNames(acc, await smart({ q: 'de' })), ['Dee']);
      assert.deepEqual(
        await memberNames(
          acc,
          await smart({
            list: vips.id,
            attributes: [{ attribute: 'city', comparator: '=', value: ['rome'] }],
          }),
        ),
        ['Cid'],
      );
      assert.deepEqual(await memberNames(acc, await smart({ valid: true })), ['Ann', 'Bob', 'Cid', 'Dee']);
      assert.deepEqual(await memberNames(acc, await smart({ invalid: true })), []);
    });

    it('evaluates the filter when read: a new matching contact is a member at once, and size follows', async () => {
      const id = await smart({ attributes: [{ attribute: 'city', comparator: '=', value: ['Lima'] }] });
      assert.equal(body(await call(svc.api, 'GET', lists(acc, `/${id}`), { auth: acc.auth })).data.size, 0);
      await newContact(acc, { firstName: 'Eve', attributes: { city: 'lima' } });
      assert.deepEqual(await memberNames(acc, id), ['Eve']);
      assert.equal(body(await call(svc.api, 'GET', lists(acc, `/${id}`), { auth: acc.auth })).data.size, 1);
    });

    it('answers the same contacts through listContactIdsQuery as over HTTP', async () => {
      const id = await smart({ optIn: true });
      const { rows: listRows } = await svc.db.query('SELECT * FROM lists WHERE account_id = $1 AND id = $2', [
        acc.accountId,
        id,
      ]);
      const q = listContactIdsQuery(acc.accountId, listRows[0]);
      const { rows } = await svc.db.query(q.text, q.values);
      const http = body(await call(svc.api, 'GET', lists(acc, `/${id}/contacts`), { auth: acc.auth })).data;
      assert.deepEqual(rows.map((r) => r.id).sort(), http.map((c: { id: string }) => c.id).sort());
      assert.equal(rows.length, 2);
    });

    it('becomes a static, empty list when its filter is set to null', async () => {
      const id = await smart({ optIn: true });
      const res = await call(svc.api, 'PUT', lists(acc, `/${id}`), {
        auth: acc.auth,
        json: { filter: null },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.filter, undefined);
      assert.equal(body(res).data.size, 0);
    });
  });
});
