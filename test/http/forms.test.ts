import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { formHelpers, NOT_THERE } from './forms-support.ts';

describe('lead forms', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const { forms, newForm, newList } = formHelpers(() => svc);

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('GET /v1/accounts/:accountId/forms/templates', () => {
    it('lists the built-in catalog in the Lead form shape, sorted by name', async () => {
      const res = await call(svc.api, 'GET', forms(a, '/templates?limit=100'), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const { data, pagination } = body(res);
      assert.ok(data.length >= 8);
      assert.equal(pagination.totalCount, data.length);
      assert.equal(pagination.hasNext, false);
      const names = data.map((t: { name: string }) => t.name);
      assert.deepEqual(
        names,
        [...names].sort((x, y) => x.localeCompare(y)),
      );
      for (const id of ['newsletter-signup', 'contest-entry', 'appointment-request']) {
        const t = data.find((x: { id: string }) => x.id === id);
        assert.ok(t, id);
        assert.equal(t.impressions, 0);
        assert.equal(t.conversions, 0);
        assert.equal(t.active, undefined);
        assert.ok(t.created.at && t.updated.at);
        assert.ok(
          t.fields.some((f: { name: string; required: boolean }) => f.name === 'mobile' && f.required),
        );
      }
    });

    it('searches with q, sorts by -name and created, and pages with offset and limit', async () => {
      const q = body(await call(svc.api, 'GET', forms(a, '/templates?q=APPOINT'), { auth: a.auth }));
      assert.deepEqual(
        q.data.map((t: { id: string }) => t.id),
        ['appointment-request'],
      );
      const byCategory = body(
        await call(svc.api, 'GET', forms(a, '/templates?q=marketing&limit=100'), { auth: a.auth }),
      );
      assert.ok(byCategory.data.length >= 3);
      assert.ok(byCategory.data.every((t: { category: string }) => t.category === 'marketing'));
      const desc = body(
        await call(svc.api, 'GET', forms(a, '/templates?sort=-name&limit=100'), { auth: a.auth }),
      );
      const names = desc.data.map((t: { name: string }) => t.name);
      assert.deepEqual(
        names,
        [...names].sort((x, y) => y.localeCompare(x)),
      );
      const created = body(
        await call(svc.api, 'GET', forms(a, '/templates?sort=created&limit=100'), { auth: a.auth }),
      );
      const ats = created.data.map((t: { created: { at: string } }) => t.created.at);
      assert.deepEqual(ats, [...ats].sort());
      assert.equal(created.data[0].id, 'newsletter-signup');
      const page = body(
        await call(svc.api, 'GET', forms(a, '/templates?sort=created&offset=1&limit=2'), { auth: a.auth }),
      );
      assert.deepEqual(
        page.data.map((t: { id: string }) => t.id),
        created.data.slice(1, 3).map((t: { id: string }) => t.id),
      );
      assert.equal(page.pagination.hasNext, true);
      const none = body(await call(svc.api, 'GET', forms(a, '/templates?q=zzzz-nothing'), { auth: a.auth }));
      assert.equal(none.data.length, 0);
      assert.equal(none.pagination.totalCount, 0);
    });

    it('rejects limit=0, limit=101, a negative offset and an unknown sort with 400 VAL-001', async () => {
      for (const qs of ['limit=0', 'limit=101', 'offset=-1', 'sort=price']) {
        const res = await call(svc.api, 'GET', forms(a, `/templates?${qs}`), { auth: a.auth });
        assert.equal(res.statusCode, 400, qs);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it("answers 401 without a token and 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'GET', forms(a, '/templates'))).statusCode, 401);
      assert.equal((await call(svc.api, 'GET', forms(b, '/templates'), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('POST /v1/accounts/:accountId/forms', () => {
    it('creates an inactive form (201) in the Lead form shape, with mobile always a required field', async () => {
      const list = await newList(a);
      const res = await call(svc.api, 'POST', forms(a), {
        auth: a.auth,
        json: {
          name: 'Spring sign-up',
          fields: [
            { name: 'firstName', required: true },
            { name: 'email' },
            { name: 'company', label: 'Company' },
          ],
          listId: list.id,
          confirmationMessage: 'Thanks {{{firstName}}}!',
          consentText: 'I agree to texts.',
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const f = body(res).data;
      assert.equal(f.name, 'Spring sign-up');
      assert.equal(f.active, undefined);
      assert.equal(f.impressions, 0);
      assert.equal(f.conversions, 0);
      assert.deepEqual(f.list, { id: list.id, name: list.name });
      assert.equal(f.confirmationMessage, 'Thanks {{{firstName}}}!');
      assert.equal(f.url, `${svc.config.externalsUrl}/f/${f.id}`);
      assert.deepEqual(
        f.fields.map((x: { name: string; type: string; required: boolean }) => [x.name, x.type, x.required]),
        [
          ['mobile', 'tel', true],
          ['firstName', 'text', true],
          ['email', 'email', false],
          ['company', 'text', false],
        ],
      );
      assert.ok(f.created.at && f.created.by.id);
    });

    it('creates a form from a catalog template; the body overrides what it gives', async () => {
      const f = await newForm(a, { name: undefined, templateId: 'appointment-request', active: true });
      assert.equal(f.name, 'Appointment request');
      assert.equal(f.templateId, 'appointment-request');
      assert.ok(f.active);
      assert.ok(
        f.fields.some(
          (x: { name: string; type: string }) => x.name === 'preferredTime' && x.type === 'select',
        ),
      );
      assert.ok(f.confirmationMessage.includes('{{{firstName}}}'));
      const named = await newForm(a, { name: 'Mine', templateId: 'waitlist', confirmationMessage: null });
      assert.equal(named.name, 'Mine');
      assert.equal(named.confirmationMessage, undefined);
    });

    it('rejects invalid definitions with 400 (VAL-001 or FORM-003)', async () => {
      const cases: [object, string][] = [
        [{}, 'VAL-001'],
        [{ name: '' }, 'VAL-001'],
        [{ name: 'x', fields: [{ name: 'bad name' }] }, 'VAL-001'],
        [{ name: 'x', fields: [{ name: 'email' }, { name: 'EMAIL' }] }, 'FORM-003'],
        [{ name: 'x', fields: [{ name: 'mobile', type: 'text' }] }, 'FORM-003'],
        [{ name: 'x', fields: [{ name: 'size', type: 'select' }] }, 'FORM-003'],
        [{ name: 'x', fields: [{ name: 'size', options: ['S'] }] }, 'FORM-003'],
        [{ name: 'x', fields: [{ name: 'homepage' }] }, 'FORM-003'],
        [{ name: 'x', defaultCountry: 'USA' }, 'VAL-001'],
        [{ name: 'x', confirmationMessage: 'x'.repeat(1601) }, 'VAL-001'],
      ];
      for (const [json, code] of cases) {
        const res = await call(svc.api, 'POST', forms(a), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, code, JSON.stringify(json));
      }
    });

    it("answers 404 FORM-002 for an unknown template, 404 LIST-001 for another account's list, 409 LIST-002 for a smart list", async () => {
      const t = await call(svc.api, 'POST', forms(a), { auth: a.auth, json: { templateId: 'nope' } });
      assert.equal(t.statusCode, 404);
      assert.equal(body(t).error.code, 'FORM-002');
      for (const listId of [(await newList(b)).id, NOT_THERE, 'not-an-id']) {
        const res = await call(svc.api, 'POST', forms(a), { auth: a.auth, json: { name: 'x', listId } });
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(body(res).error.code, 'LIST-001');
      }
      const smart = await newList(a, { filter: { q: 'x' } });
      const res = await call(svc.api, 'POST', forms(a), {
        auth: a.auth,
        json: { name: 'x', listId: smart.id },
      });
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(body(res).error.code, 'LIST-002');
    });

    it("answers 401 without a token and 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'POST', forms(a), { json: { name: 'x' } })).statusCode, 401);
      assert.equal(
        (await call(svc.api, 'POST', forms(b), { auth: a.auth, json: { name: 'x' } })).statusCode,
        403,
      );
    });
  });

  describe('GET /v1/accounts/:accountId/forms and …/forms/:formId', () => {
    it('lists newest first with pagination and a name filter, never another account’s forms', async () => {
      const acc = await svc.newAccount();
      await newForm(acc, { name: 'Alpha promo' });
      await newForm(acc, { name: 'Beta' });
      await newForm(acc, { name: 'Gamma PROMO' });
      await newForm(b, { name: 'Other promo' });
      const all = body(await call(svc.api, 'GET', forms(acc, '?limit=2'), { auth: acc.auth }));
      assert.deepEqual(
        all.data.map((f: { name: string }) => f.name),
        ['Gamma PROMO', 'Beta'],
      );
      assert.equal(all.pagination.totalCount, 3);
      assert.equal(all.pagination.hasNext, true);
      const promo = body(await call(svc.api, 'GET', forms(acc, '?name=promo'), { auth: acc.auth }));
      assert.deepEqual(
        promo.data.map((f: { name: string }) => f.name),
        ['Gamma PROMO', 'Alpha promo'],
      );
    });

    it('answers one form, and 404 FORM-001 for another account’s, an unknown id and a non-id', async () => {
      const f = await newForm(a);
      const res = await call(svc.api, 'GET', forms(a, `/${f.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res).data, f);
      const theirs = await newForm(b);
      for (const id of [theirs.id, NOT_THERE, 'nope']) {
        const r = await call(svc.api, 'GET', forms(a, `/${id}`), { auth: a.auth });
        assert.equal(r.statusCode, 404);
        assert.equal(body(r).error.code, 'FORM-001');
      }
    });

    it('rejects a bad page with 400 and answers 401 without a token', async () => {
      assert.equal((await call(svc.api, 'GET', forms(a, '?limit=0'), { auth: a.auth })).statusCode, 400);
      assert.equal((await call(svc.api, 'GET', forms(a))).statusCode, 401);
      assert.equal((await call(svc.api, 'GET', forms(a, `/${NOT_THERE}`))).statusCode, 401);
    });
  });

  describe('PUT /v1/accounts/:accountId/forms/:formId', () => {
    it('updates the given fields only; listId null removes the list', async () => {
      const list = await newList(a);
      const f = await newForm(a, { listId: list.id, consentText: 'ok' });
      const res = await call(svc.api, 'PUT', forms(a, `/${f.id}`), {
        auth: a.auth,
        json: { name: 'Renamed', fields: [{ name: 'lastName', required: true }], listId: null },
      });
      assert.equal(res.statusCode, 200, res.body);
      const u = body(res).data;
      assert.equal(u.name, 'Renamed');
      assert.equal(u.list, undefined);
      assert.equal(u.consentText, 'ok');
      assert.deepEqual(
        u.fields.map((x: { name: string }) => x.name),
        ['mobile', 'lastName'],
      );
    });

    it('rejects an invalid body with 400 and leaves the form unchanged', async () => {
      const f = await newForm(a);
      for (const json of [{ name: '' }, { fields: [{ name: 'a', type: 'radio' }] }, { fields: 'x' }]) {
        const res = await call(svc.api, 'PUT', forms(a, `/${f.id}`), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
      }
      assert.equal(
        body(await call(svc.api, 'GET', forms(a, `/${f.id}`), { auth: a.auth })).data.name,
        f.name,
      );
    });

    it("answers 404 FORM-001 for another account's form and leaves it unchanged; 401 without a token", async () => {
      const theirs = await newForm(b);
      const res = await call(svc.api, 'PUT', forms(a, `/${theirs.id}`), {
        auth: a.auth,
        json: { name: 'hijack' },
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'FORM-001');
      assert.equal(
        body(await call(svc.api, 'GET', forms(b, `/${theirs.id}`), { auth: b.auth })).data.name,
        theirs.name,
      );
      assert.equal(
        (await call(svc.api, 'PUT', forms(a, `/${theirs.id}`), { json: { name: 'x' } })).statusCode,
        401,
      );
    });
  });

  describe('DELETE /v1/accounts/:accountId/forms/:formId', () => {
    it('deletes the form; its hosted page answers 404', async () => {
      const f = await newForm(a, { active: true });
      assert.equal((await call(svc.externals, 'GET', `/f/${f.id}`)).statusCode, 200);
      const res = await call(svc.api, 'DELETE', forms(a, `/${f.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res), { success: true });
      assert.equal((await call(svc.api, 'GET', forms(a, `/${f.id}`), { auth: a.auth })).statusCode, 404);
      assert.equal((await call(svc.externals, 'GET', `/f/${f.id}`)).statusCode, 404);
    });

    it("answers 404 FORM-001 for another account's form and keeps it; 401 without a token", async () => {
      const theirs = await newForm(b);
      for (const id of [theirs.id, 'nope']) {
        const res = await call(svc.api, 'DELETE', forms(a, `/${id}`), { auth: a.auth });
        assert.equal(res.statusCode, 404);
        assert.equal(body(res).error.code, 'FORM-001');
      }
      assert.equal((await call(svc.api, 'GET', forms(b, `/${theirs.id}`), { auth: b.auth })).statusCode, 200);
      assert.equal((await call(svc.api, 'DELETE', forms(a, `/${theirs.id}`))).statusCode, 401);
    });
  });
});
