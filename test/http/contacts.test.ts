import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { withTx } from '../../src/db/client.ts';
import { findOrCreateContactByMobile } from '../../src/domain/contacts/find-or-create-by-mobile.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

const csvHeaders = (auth: Record<string, string>) => ({ ...auth, 'content-type': 'text/csv' });

describe('contacts', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  // Distinct valid US numbers (201-555-01xx is not valid; 201-2xx-xxxx is).
  const nextMobile = () => `+1201${String(2_000_000 + seq++).padStart(7, '0')}`;
  const url = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/contacts${rest}`;
  const create = async (acc: TestAccount, json: object, query = '') =>
    call(svc.api, 'POST', url(acc, query), { auth: acc.auth, json });
  const events = async (accountId: string, type: string) =>
    (
      await svc.db.query(
        'SELECT data FROM events WHERE account_id = $1 AND type = $2 ORDER BY created_at, id',
        [accountId, type],
      )
    ).rows.map((r) => r.data);

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
    // The tests read a's contact-created events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created']);
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/contacts (JSON)', () => {
    it('creates a contact from an E.164 string and answers 201 with the Contact shape', async () => {
      const res = await create(a, {
        mobile: '+61412345678',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
      });
      assert.equal(res.statusCode, 201);
      const c = body(res).data[0];
      assert.match(c.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(c.mobile, {
        country: 'AU',
        number: '+61412345678',
        valid: true,
        lineType: 'mobile',
      });
      assert.equal(c.firstName, 'Ada');
      assert.equal(c.lastName, 'Lovelace');
      assert.equal(c.email, 'ada@example.com');
      assert.deepEqual(c.lists, []);
      assert.deepEqual(c.attributes, {});
      assert.deepEqual(c.tags, []);
      assert.equal(c.optIn, undefined);
      assert.equal(c.optOut, undefined);
      assert.equal(c.blocked, undefined);
      assert.equal(c.valid, true);
      assert.match(c.created.at, /^\d{4}-\d\d-\d\dT.*Z$/);
      assert.equal(c.created.by.source, 'api');
    });

    it('reads a national number in mobile.country', async () => {
      const res = await create(a, { mobile: { number: '07400 123456', country: 'GB' } });
      assert.equal(res.statusCode, 201);
      assert.deepEqual(body(res).data[0].mobile, {
        country: 'GB',
        number: '+447400123456',
        valid: true,
        lineType: 'mobile',
      });
    });

    it('reads a national number without a country as US', async () => {
      const res = await create(a, { mobile: { number: '(201) 300-0001' } });
      assert.equal(res.statusCode, 201);
      assert.equal(body(res).data[0].mobile.number, '+12013000001');
      assert.equal(body(res).data[0].mobile.country, 'US');
    });

    it('stores attributes, tags (objects and plain strings), optIn = true as now, and a blocked timestamp', async () => {
      const before = Date.now();
      const res = await create(a, {
        mobile: nextMobile(),
        attributes: { plan: 'gold', visits: 3 },
        tags: ['vip', { tag: 'internal', visible: false }],
        optIn: true,
        blocked: '2024-05-01T10:00:00Z',
      });
      assert.equal(res.statusCode, 201);
      const c = body(res).data[0];
      assert.deepEqual(c.attributes, { plan: 'gold', visits: 3 });
      assert.deepEqual(c.tags, [
        { tag: 'vip', visible: true },
        { tag: 'internal', visible: false },
      ]);
      assert.ok(Date.parse(c.optIn) >= before - 1000);
      assert.equal(c.blocked, '2024-05-01T10:00:00.000Z');
    });

    it('rejects an invalid mobile with 400 CONT-001', async () => {
      const res = await create(a, { mobile: '+1555', firstName: 'X' });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'CONT-001');
    });

    it('rejects a contact without a mobile with 400 CONT-001', async () => {
      const res = await create(a, { firstName: 'No number' });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'CONT-001');
    });

    it('rejects an optIn that is neither a timestamp nor a boolean with 400', async () => {
      const res = await create(a, { mobile: nextMobile(), optIn: 'yesterday-ish' });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it('rejects an invalid email with 400 VAL-001', async () => {
      const res = await create(a, { mobile: nextMobile(), email: 'not-an-email' });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it('rejects an unknown mergeStrategy with 400', async () => {
      const res = await create(a, { mobile: nextMobile() }, '?mergeStrategy=overwrite');
      assert.equal(res.statusCode, 400);
    });

    it('rejects a text/plain body with 415', async () => {
      const res = await call(svc.api, 'POST', url(a), {
        auth: a.auth,
        headers: { 'content-type': 'text/plain' },
        payload: 'hello',
      });
      assert.equal(res.statusCode, 415);
      assert.equal(body(res).error.code, 'VAL-004');
    });

    it('rejects a mobile that already exists with 409 CONT-003', async () => {
      const mobile = nextMobile();
      assert.equal((await create(a, { mobile })).statusCode, 201);
      const res = await create(a, { mobile: { number: mobile.slice(2), country: 'US' }, firstName: 'Again' });
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'CONT-003');
    });

    it('lets two accounts hold the same mobile', async () => {
      const mobile = nextMobile();
      assert.equal((await create(a, { mobile })).statusCode, 201);
      assert.equal((await create(b, { mobile })).statusCode, 201);
    });

    it('merges with mergeStrategy=append: given fields updated, attributes and tags merged', async () => {
      const mobile = nextMobile();
      const first = body(
        await create(a, {
          mobile,
          firstName: 'Old',
          lastName: 'Name',
          attributes: { a: '1', b: '2' },
          tags: ['one'],
        }),
      ).data[0];
      const res = await create(
        a,
        { mobile, firstName: 'New', attributes: { b: '3', c: '4' }, tags: ['two'] },
        '?mergeStrategy=append',
      );
      assert.equal(res.statusCode, 201);
      const c = body(res).data[0];
      assert.equal(c.id, first.id);
      assert.equal(c.firstName, 'New');
      assert.equal(c.lastName, 'Name');
      assert.deepEqual(c.attributes, { a: '1', b: '3', c: '4' });
      assert.deepEqual(
        c.tags.map((t: { tag: string }) => t.tag),
        ['one', 'two'],
      );
    });

    it('merges with mergeStrategy=core: names and email updated, attributes and tags left alone', async () => {
      const mobile = nextMobile();
      await create(a, { mobile, firstName: 'Old', attributes: { a: '1' }, tags: ['one'] });
      const res = await create(
        a,
        {
          mobile,
          firstName: 'New',
          email: 'new@example.com',
          attributes: { z: '9' },
          tags: ['two'],
          blocked: true,
        },
        '?mergeStrategy=core',
      );
      assert.equal(res.statusCode, 201);
      const c = body(res).data[0];
      assert.equal(c.firstName, 'New');
      assert.equal(c.email, 'new@example.com');
      assert.deepEqual(c.attributes, { a: '1' });
      assert.deepEqual(c.tags, [{ tag: 'one', visible: true }]);
      assert.equal(c.blocked, undefined);
    });

    it('merges with mergeStrategy=remove: the contact data is replaced by the given data', async () => {
      const mobile = nextMobile();
      await create(a, {
        mobile,
        firstName: 'Old',
        lastName: 'Gone',
        email: 'old@example.com',
        attributes: { a: '1' },
        tags: ['one'],
      });
      const res = await create(
        a,
        { mobile, firstName: 'Only', attributes: { b: '2' } },
        '?mergeStrategy=remove',
      );
      assert.equal(res.statusCode, 201);
      const c = body(res).data[0];
      assert.equal(c.firstName, 'Only');
      assert.equal(c.lastName, undefined);
      assert.ok(!('email' in c), 'an unset e-mail is left out, not null');
      assert.deepEqual(c.attributes, { b: '2' });
      assert.deepEqual(c.tags, []);
    });

    it('emits contact-created with the Contact as data, and contact-updated on a merge', async () => {
      const mobile = nextMobile();
      const created = body(await create(a, { mobile, firstName: 'Evt' })).data[0];
      const merged = body(await create(a, { mobile, lastName: 'Merged' }, '?mergeStrategy=append')).data[0];
      const createdEvents = (await events(a.accountId, 'contact-created')).filter((d) => d.id === created.id);
      assert.deepEqual(createdEvents, [created]);
      const updatedEvents = (await events(a.accountId, 'contact-updated')).filter((d) => d.id === created.id);
      assert.deepEqual(updatedEvents, [merged]);
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'POST', url(a), { json: { mobile: nextMobile() } });
      assert.equal(res.statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      const res = await create({ ...b, auth: a.auth }, { mobile: nextMobile() });
      assert.equal(res.statusCode, 403);
    });

    it('answers 403 to a token without contacts:write', async () => {
      const reader = await svc.newAccount({ scopes: ['contacts:read'] });
      const res = await create(reader, { mobile: nextMobile() });
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-004');
    });
  });

  describe('POST /v1/accounts/:accountId/contacts (CSV upload)', () => {
    const upload = (acc: TestAccount, csv: string, query = '') =>
      call(svc.api, 'POST', url(acc, query), { headers: csvHeaders(acc.auth), payload: csv });

    it('inserts rows, turning extra columns into attributes and splitting tags on ;', async () => {
      const m1 = nextMobile();
      const csv = `country,firstName,lastName,email,mobile,tags,plan,city\nUS,Grace,Hopper,grace@example.com,${m1.slice(2)},navy;cobol,gold,Arlington\nGB,Alan,Turing,,07400 200300,,,\n`;
      const res = await upload(a, csv);
      assert.equal(res.statusCode, 201);
      const d = body(res).data;
      assert.deepEqual(
        { submitted: d.submitted, inserted: d.inserted, updated: d.updated, success: d.success },
        {
          submitted: 2,
          inserted: 2,
          updated: 0,
          success: 2,
        },
      );
      assert.deepEqual(d.errors, []);
      assert.equal(d.contacts.length, 2);
      const [grace, alan] = d.contacts;
      assert.equal(grace.mobile.number, m1);
      assert.equal(grace.email, 'grace@example.com');
      assert.deepEqual(grace.attributes, { plan: 'gold', city: 'Arlington' });
      assert.deepEqual(grace.tags, [
        { tag: 'navy', visible: true },
        { tag: 'cobol', visible: true },
      ]);
      assert.equal(alan.mobile.number, '+447400200300');
      assert.equal(alan.mobile.country, 'GB');
      assert.deepEqual(alan.attributes, {});
      assert.equal(alan.email, undefined);
    });

    it('reports each failed row with its number, input and error, and inserts the rest', async () => {
      const good = nextMobile();
      const csv = `firstName,mobile,email\nOk,${good},\nBad,12345,\nNone,,\nMail,${nextMobile()},nope\n`;
      const res = await upload(a, csv);
      assert.equal(res.statusCode, 201);
      const d = body(res).data;
      assert.equal(d.submitted, 4);
      assert.equal(d.inserted, 1);
      assert.equal(d.success, 1);
      assert.deepEqual(
        d.errors.map((e: { row: number; error: { code: string } }) => [e.row, e.error.code]),
        [
          [2, 'CONT-001'],
          [3, 'CONT-001'],
          [4, 'VAL-001'],
        ],
      );
      assert.deepEqual(d.errors[0].input, { firstName: 'Bad', mobile: '12345', email: '' });
      assert.equal(typeof d.errors[0].error.description, 'string');
    });

    it('reports a mobile that exists, or repeats in the file, as CONT-003 without mergeStrategy', async () => {
      const existing = nextMobile();
      await create(a, { mobile: existing });
      const fresh = nextMobile();
      const res = await upload(a, `mobile,firstName\n${existing},X\n${fresh},Y\n${fresh},Z\n`);
      const d = body(res).data;
      assert.equal(d.inserted, 1);
      assert.deepEqual(
        d.errors.map((e: { row: number; error: { code: string } }) => [e.row, e.error.code]),
        [
          [1, 'CONT-003'],
          [3, 'CONT-003'],
        ],
      );
    });

    it('merges existing and repeated mobiles with mergeStrategy=append and counts them as updated', async () => {
      const existing = nextMobile();
      const before = body(
        await create(a, { mobile: existing, firstName: 'Keep', attributes: { a: '1' }, tags: ['x'] }),
      ).data[0];
      const fresh = nextMobile();
      const res = await upload(
        a,
        `mobile,lastName,tags,b\n${existing},Last,y,2\n${fresh},One,,\n${fresh},Two,,3\n`,
        '?mergeStrategy=append',
      );
      const d = body(res).data;
      assert.deepEqual([d.submitted, d.inserted, d.updated, d.success, d.errors.length], [3, 1, 2, 3, 0]);
      const merged = d.contacts.find((c: { id: string }) => c.id === before.id);
      assert.equal(merged.firstName, 'Keep');
      assert.equal(merged.lastName, 'Last');
      assert.deepEqual(merged.attributes, { a: '1', b: '2' });
      assert.deepEqual(
        merged.tags.map((t: { tag: string }) => t.tag),
        ['x', 'y'],
      );
      const repeated = d.contacts.find((c: { mobile: { number: string } }) => c.mobile.number === fresh);
      assert.equal(repeated.lastName, 'Two');
      assert.deepEqual(repeated.attributes, { b: '3' });
    });

    it('replaces data with mergeStrategy=remove and keeps attributes with mergeStrategy=core', async () => {
      const m1 = nextMobile();
      const m2 = nextMobile();
      await create(a, { mobile: m1, firstName: 'F', lastName: 'L', attributes: { a: '1' } });
      await create(a, { mobile: m2, firstName: 'F', attributes: { a: '1' } });
      const removed = body(await upload(a, `mobile,firstName,c\n${m1},R,3\n`, '?mergeStrategy=remove')).data
        .contacts[0];
      assert.deepEqual(
        [removed.firstName, removed.lastName, removed.attributes],
        ['R', undefined, { c: '3' }],
      );
      const core = body(await upload(a, `mobile,firstName,c\n${m2},C,3\n`, '?mergeStrategy=core')).data
        .contacts[0];
      assert.deepEqual([core.firstName, core.attributes], ['C', { a: '1' }]);
    });

    it('writes one contact-created event per inserted row, equal to the contact as read back', async () => {
      const m = nextMobile();
      const d = body(await upload(a, `mobile,firstName,tags,color\n${m},Eve,t1,blue\n`)).data;
      const id = d.contacts[0].id;
      const got = body(await call(svc.api, 'GET', url(a, `/${id}`), { auth: a.auth })).data;
      const created = (await events(a.accountId, 'contact-created')).filter((e) => e.id === id);
      assert.deepEqual(created, [got]);
    });

    it('writes contact-updated events for merged rows', async () => {
      const m = nextMobile();
      const c = body(await create(a, { mobile: m })).data[0];
      await upload(a, `mobile,firstName\n${m},Merged\n`, '?mergeStrategy=append');
      const updated = (await events(a.accountId, 'contact-updated')).filter((e) => e.id === c.id);
      assert.equal(updated.length, 1);
      assert.equal(updated[0].firstName, 'Merged');
    });

    it('rejects a CSV without a mobile column with 400 CONT-004', async () => {
      const res = await upload(a, 'firstName,lastName\nA,B\n');
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'CONT-004');
    });

    it('rejects malformed CSV with 400 CONT-004', async () => {
      const res = await upload(a, 'mobile,firstName\n"+12013000002,unterminated\n');
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'CONT-004');
    });

    it('rejects an upload without a token with 401', async () => {
      const res = await call(svc.api, 'POST', url(a), {
        headers: { 'content-type': 'text/csv' },
        payload: `mobile\n${nextMobile()}\n`,
      });
      assert.equal(res.statusCode, 401);
    });

    it("answers 403 for an upload into another account's path", async () => {
      const res = await call(svc.api, 'POST', url(b), {
        headers: csvHeaders(a.auth),
        payload: `mobile\n${nextMobile()}\n`,
      });
      assert.equal(res.statusCode, 403);
    });

    it('accepts 100,000 rows in one upload, answering the first 100 contacts', async () => {
      const bulk = await svc.newAccount();
      await listenToEvents(svc.db, bulk.accountId, ['contact-created']);
      const lines = ['country,firstName,lastName,email,mobile,tags,tier'];
      for (let i = 0; i < 100_000; i++) {
        lines.push(
          `US,First${i},Last${i},user${i}@example.com,201${String(3_100_000 + i).padStart(7, '0')},bulk;t${i % 7},${i % 3}`,
        );
      }
      const res = await call(svc.api, 'POST', url(bulk), {
        headers: csvHeaders(bulk.auth),
        payload: `${lines.join('\n')}\n`,
      });
      assert.equal(res.statusCode, 201);
      const d = body(res).data;
      assert.deepEqual(
        [d.submitted, d.inserted, d.updated, d.success, d.errors.length],
        [100_000, 100_000, 0, 100_000, 0],
      );
      assert.equal(d.contacts.length, 100);
      assert.equal(d.contacts[0].firstName, 'First0');
      const { rows } = await svc.db.query(
        `SELECT (SELECT count(*)::int FROM contacts WHERE account_id = $1) AS contacts,
                (SELECT count(*)::int FROM events WHERE account_id = $1 AND type = 'contact-created') AS events`,
        [bulk.accountId],
      );
      assert.deepEqual(rows[0], { contacts: 100_000, events: 100_000 });
      const page = body(await call(svc.api, 'GET', url(bulk, '?limit=1'), { auth: bulk.auth }));
      assert.equal(page.pagination.totalCount, 100_000);
    });
  });

  describe('GET /v1/accounts/:accountId/contacts', () => {
    let acc: TestAccount;
    before(async () => {
      acc = await svc.newAccount();
      const people = [
        ['Maria', 'Garcia', 'maria@alpha.io', '+12013500001', ['Gold', 'east']],
        ['Mario', 'Rossi', 'mrossi@beta.io', '+12013500002', ['silver']],
        ['Li', 'Wei', 'li@gamma.io', '+12013500003', ['gold-plus']],
      ] as const;
      for (const [firstName, lastName, email, mobile, tags] of people) {
        assert.equal(
          (await create(acc, { firstName, lastName, email, mobile, tags: [...tags] })).statusCode,
          201,
        );
      }
      await create(b, { firstName: 'Maria', mobile: '+12013500001' });
    });
    const names = async (query: string) => {
      const res = await call(svc.api, 'GET', url(acc, query), { auth: acc.auth });
      assert.equal(res.statusCode, 200);
      return body(res).data.map((c: { firstName: string }) => c.firstName);
    };

    it('answers the contacts newest first with pagination and totalCount', async () => {
      const res = await call(svc.api, 'GET', url(acc, '?limit=2'), { auth: acc.auth });
      assert.equal(res.statusCode, 200);
      const r = body(res);
      assert.deepEqual(
        r.data.map((c: { firstName: string }) => c.firstName),
        ['Li', 'Mario'],
      );
      assert.deepEqual(r.pagination, { limit: 2, offset: 0, hasNext: true, totalCount: 3 });
      const next = body(await call(svc.api, 'GET', url(acc, '?limit=2&offset=2'), { auth: acc.auth }));
      assert.deepEqual(next.pagination, { limit: 2, offset: 2, hasNext: false, totalCount: 3 });
      assert.equal(next.data[0].firstName, 'Maria');
    });

    it('filters by partial, case-insensitive firstName, lastName, email, mobile and tags', async () => {
      assert.deepEqual(await names('?firstName=MAR'), ['Mario', 'Maria']);
      assert.deepEqual(await names('?lastName=ross'), ['Mario']);
      assert.deepEqual(await names('?email=GAMMA'), ['Li']);
      assert.deepEqual(await names('?mobile=3500001'), ['Maria']);
      assert.deepEqual(await names('?tags=gold'), ['Li', 'Maria']);
      assert.deepEqual(await names('?tags=gold,east'), ['Maria']);
      assert.deepEqual(await names('?firstName=mar&lastName=garc'), ['Maria']);
    });

    it('matches q across names, email and mobile', async () => {
      assert.deepEqual(await names('?q=wei'), ['Li']);
      assert.deepEqual(await names('?q=beta.io'), ['Mario']);
      assert.deepEqual(await names('?q=3500001'), ['Maria']);
      assert.deepEqual(await names('?q=maria garcia'), ['Maria']);
      assert.deepEqual(await names('?q=nobody'), []);
    });

    it('treats % and _ in a filter as plain characters', async () => {
      assert.deepEqual(await names('?firstName=%25'), []);
      assert.deepEqual(await names('?firstName=_'), []);
    });

    it('rejects limit 0, limit 101 and a negative offset with 400', async () => {
      for (const q of ['?limit=0', '?limit=101', '?offset=-1']) {
        const res = await call(svc.api, 'GET', url(acc, q), { auth: acc.auth });
        assert.equal(res.statusCode, 400, q);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'GET', url(acc))).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'GET', url(b), { auth: acc.auth })).statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/contacts/:contactId', () => {
    it('answers the contact', async () => {
      const c = body(await create(a, { mobile: nextMobile(), firstName: 'Get' })).data[0];
      const res = await call(svc.api, 'GET', url(a, `/${c.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data, c);
    });

    it("answers 404 CONT-002 for another account's contact", async () => {
      const other = body(await create(b, { mobile: nextMobile() })).data[0];
      const res = await call(svc.api, 'GET', url(a, `/${other.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'CONT-002');
    });

    it('answers 404 for an id that is not an id', async () => {
      const res = await call(svc.api, 'GET', url(a, '/not-a-uuid'), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'CONT-002');
    });

    it('rejects a call without a token with 401', async () => {
      const c = body(await create(a, { mobile: nextMobile() })).data[0];
      assert.equal((await call(svc.api, 'GET', url(a, `/${c.id}`))).statusCode, 401);
    });
  });

  describe('PUT /v1/accounts/:accountId/contacts/:contactId', () => {
    it('updates only the given fields; attributes merge, a null attribute is removed, tags are replaced', async () => {
      const c = body(
        await create(a, {
          mobile: nextMobile(),
          firstName: 'Old',
          lastName: 'Keep',
          attributes: { a: '1', b: '2' },
          tags: ['x'],
        }),
      ).data[0];
      const res = await call(svc.api, 'PUT', url(a, `/${c.id}`), {
        auth: a.auth,
        json: {
          firstName: 'New',
          attributes: { a: null, c: 3 },
          tags: [{ tag: 'y', visible: false }],
          blocked: true,
        },
      });
      assert.equal(res.statusCode, 200);
      const u = body(res).data;
      assert.equal(u.firstName, 'New');
      assert.equal(u.lastName, 'Keep');
      assert.deepEqual(u.attributes, { b: '2', c: 3 });
      assert.deepEqual(u.tags, [{ tag: 'y', visible: false }]);
      assert.notEqual(u.blocked, null);
      assert.equal(u.mobile.number, c.mobile.number);
      const unblocked = body(
        await call(svc.api, 'PUT', url(a, `/${c.id}`), { auth: a.auth, json: { blocked: false } }),
      ).data;
      assert.equal(unblocked.blocked, undefined);
    });

    it('changes the mobile, parsed like on create', async () => {
      const c = body(await create(a, { mobile: nextMobile() })).data[0];
      const res = await call(svc.api, 'PUT', url(a, `/${c.id}`), {
        auth: a.auth,
        json: { mobile: { number: '0412 999 888', country: 'AU' } },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.mobile.number, '+61412999888');
      assert.equal(body(res).data.mobile.country, 'AU');
    });

    it('rejects an invalid mobile with 400 CONT-001', async () => {
      const c = body(await create(a, { mobile: nextMobile() })).data[0];
      const res = await call(svc.api, 'PUT', url(a, `/${c.id}`), { auth: a.auth, json: { mobile: 'abc' } });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'CONT-001');
    });

    it("rejects another contact's mobile with 409 CONT-003", async () => {
      const one = body(await create(a, { mobile: nextMobile() })).data[0];
      const two = body(await create(a, { mobile: nextMobile() })).data[0];
      const res = await call(svc.api, 'PUT', url(a, `/${two.id}`), {
        auth: a.auth,
        json: { mobile: one.mobile.number },
      });
      assert.equal(res.statusCode, 409);
      assert.equal(body(res).error.code, 'CONT-003');
    });

    it('emits contact-updated with the updated Contact', async () => {
      const c = body(await create(a, { mobile: nextMobile() })).data[0];
      const u = body(
        await call(svc.api, 'PUT', url(a, `/${c.id}`), { auth: a.auth, json: { lastName: 'Evented' } }),
      ).data;
      assert.deepEqual(
        (await events(a.accountId, 'contact-updated')).filter((e) => e.id === c.id),
        [u],
      );
    });

    it("answers 404 for another account's contact and leaves it unchanged", async () => {
      const other = body(await create(b, { mobile: nextMobile(), firstName: 'Theirs' })).data[0];
      const res = await call(svc.api, 'PUT', url(a, `/${other.id}`), {
        auth: a.auth,
        json: { firstName: 'Mine' },
      });
      assert.equal(res.statusCode, 404);
      const still = body(await call(svc.api, 'GET', url(b, `/${other.id}`), { auth: b.auth })).data;
      assert.equal(still.firstName, 'Theirs');
    });

    it('rejects a call without a token with 401', async () => {
      const c = body(await create(a, { mobile: nextMobile() })).data[0];
      assert.equal(
        (await call(svc.api, 'PUT', url(a, `/${c.id}`), { json: { firstName: 'X' } })).statusCode,
        401,
      );
    });
  });

  describe('DELETE /v1/accounts/:accountId/contacts/:contactId', () => {
    it('deletes the contact, answers {success: true} and emits contact-removed', async () => {
      const c = body(await create(a, { mobile: nextMobile() })).data[0];
      const res = await call(svc.api, 'DELETE', url(a, `/${c.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res), { success: true });
      assert.equal((await call(svc.api, 'GET', url(a, `/${c.id}`), { auth: a.auth })).statusCode, 404);
      const removed = (await events(a.accountId, 'contact-removed')).filter((e) => e.id === c.id);
      assert.equal(removed.length, 1);
      assert.deepEqual(removed[0].mobile, c.mobile);
      assert.equal((await call(svc.api, 'DELETE', url(a, `/${c.id}`), { auth: a.auth })).statusCode, 404);
    });

    it("answers 404 for another account's contact and leaves it in place", async () => {
      const other = body(await create(b, { mobile: nextMobile() })).data[0];
      assert.equal((await call(svc.api, 'DELETE', url(a, `/${other.id}`), { auth: a.auth })).statusCode, 404);
      assert.equal((await call(svc.api, 'GET', url(b, `/${other.id}`), { auth: b.auth })).statusCode, 200);
    });

    it('rejects a call without a token with 401', async () => {
      const c = body(await create(a, { mobile: nextMobile() })).data[0];
      assert.equal((await call(svc.api, 'DELETE', url(a, `/${c.id}`))).statusCode, 401);
    });
  });

  describe('findOrCreateContactByMobile', () => {
    it('creates once under concurrent calls, emitting one contact-created, and finds it afterwards', async () => {
      const acc = await svc.newAccount();
      await listenToEvents(svc.db, acc.accountId, ['contact-created']);
      const input = { number: '+12015557000', country: 'US', lineType: 'fixedOrMobile', firstName: 'Race' };
      const by = { id: 'test', source: 'test' };
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          withTx(svc.db, (tx) => findOrCreateContactByMobile(tx, acc.accountId, input, by)),
        ),
      );
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(new Set(results.map((r) => r.contact.id)).size, 1);
      assert.equal((await events(acc.accountId, 'contact-created')).length, 1);
      const again = await withTx(svc.db, (tx) => findOrCreateContactByMobile(tx, acc.accountId, input, by));
      assert.deepEqual([again.created, again.contact.id], [false, results[0].contact.id]);
      const got = body(await call(svc.api, 'GET', url(acc, `/${again.contact.id}`), { auth: acc.auth })).data;
      assert.deepEqual(
        [got.firstName, got.mobile.number, got.mobile.lineType],
        ['Race', '+12015557000', 'fixedOrMobile'],
      );
    });
  });
});
