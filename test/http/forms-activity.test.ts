import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { formHelpers, NOT_THERE } from './forms-support.ts';

describe('lead forms: activation, analytics and conversions', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const { forms, newForm } = formHelpers(() => svc);
  const submit = (formId: string, fields: Record<string, string>) =>
    call(svc.externals, 'POST', `/f/${formId}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('PUT …/forms/:formId/activate and …/deactivate', () => {
    it('activates (keeping the first activation time) and deactivates (active left out), answering the Lead form', async () => {
      const f = await newForm(a);
      const on = await call(svc.api, 'PUT', forms(a, `/${f.id}/activate`), { auth: a.auth });
      assert.equal(on.statusCode, 200, on.body);
      const active = body(on).data.active;
      assert.ok(active);
      const again = body(await call(svc.api, 'PUT', forms(a, `/${f.id}/activate`), { auth: a.auth })).data;
      assert.equal(again.active, active);
      const off = await call(svc.api, 'PUT', forms(a, `/${f.id}/deactivate`), {
        auth: a.auth,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(off.statusCode, 200, off.body);
      assert.equal(body(off).data.active, undefined);
      assert.equal(body(off).data.id, f.id);
      assert.equal(body(off).data.name, f.name);
      const page = await call(svc.externals, 'GET', `/f/${f.id}`);
      assert.equal(page.statusCode, 404);
    });

    it("answers 404 FORM-001 for another account's form (unchanged) and 401 without a token", async () => {
      const theirs = await newForm(b, { active: true });
      for (const action of ['activate', 'deactivate']) {
        const res = await call(svc.api, 'PUT', forms(a, `/${theirs.id}/${action}`), { auth: a.auth });
        assert.equal(res.statusCode, 404);
        assert.equal(body(res).error.code, 'FORM-001');
        assert.equal((await call(svc.api, 'PUT', forms(a, `/${theirs.id}/${action}`))).statusCode, 401);
      }
      assert.ok(body(await call(svc.api, 'GET', forms(b, `/${theirs.id}`), { auth: b.auth })).data.active);
    });

    it('rejects a token without forms:write with 403', async () => {
      const reader = await svc.newAccount({ scopes: ['forms:read'] });
      for (const action of ['activate', 'deactivate']) {
        const res = await call(svc.api, 'PUT', forms(reader, `/${NOT_THERE}/${action}`), {
          auth: reader.auth,
        });
        assert.equal(res.statusCode, 403);
        assert.equal(body(res).error.code, 'AUTH-004');
      }
    });
  });

  describe('GET …/forms/:formId/analytics', () => {
    it('answers impressions and conversions per day over the range, every day listed', async () => {
      const f = await newForm(a, { active: true });
      for (let i = 0; i < 3; i++)
        assert.equal((await call(svc.externals, 'GET', `/f/${f.id}`)).statusCode, 200);
      assert.equal((await submit(f.id, { mobile: '+12015550161' })).statusCode, 200);
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const res = await call(svc.api, 'GET', forms(a, `/${f.id}/analytics?start=${yesterday}&end=${today}`), {
        auth: a.auth,
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = body(res).data;
      assert.equal(data.start, yesterday);
      assert.equal(data.end, today);
      assert.deepEqual(data.days, [
        { date: yesterday, impressions: 0, conversions: 0 },
        { date: today, impressions: 3, conversions: 1 },
      ]);
      assert.equal(data.impressions, 3);
      assert.equal(data.conversions, 1);
      assert.equal(data.conversionRate, 0.3333);
      const def = body(await call(svc.api, 'GET', forms(a, `/${f.id}/analytics`), { auth: a.auth })).data;
      assert.deepEqual(def.days, [{ date: today, impressions: 3, conversions: 1 }]);
      const form = body(await call(svc.api, 'GET', forms(a, `/${f.id}`), { auth: a.auth })).data;
      assert.equal(form.impressions, 3);
      assert.equal(form.conversions, 1);
    });

    it('rejects a malformed date, start after end and a range over 366 days with 400 VAL-001', async () => {
      const f = await newForm(a);
      for (const qs of [
        'start=yesterday',
        'end=2025-02-30',
        'start=2025-03-02&end=2025-03-01',
        'start=2020-01-01&end=2025-01-01',
      ]) {
        const res = await call(svc.api, 'GET', forms(a, `/${f.id}/analytics?${qs}`), { auth: a.auth });
        assert.equal(res.statusCode, 400, qs);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it("answers 404 for another account's form and 401 without a token", async () => {
      const theirs = await newForm(b);
      const res = await call(svc.api, 'GET', forms(a, `/${theirs.id}/analytics`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'FORM-001');
      assert.equal((await call(svc.api, 'GET', forms(a, `/${theirs.id}/analytics`))).statusCode, 401);
    });
  });

  describe('GET …/forms/:formId/conversions', () => {
    it('lists conversions newest first in the Form conversion shape, filtered by start and end', async () => {
      const f = await newForm(a, {
        active: true,
        fields: [{ name: 'firstName' }, { name: 'lastName' }, { name: 'email' }, { name: 'plan' }],
      });
      const first = await submit(f.id, {
        mobile: '+12015550171',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        plan: 'pro',
        _pageUrl: 'https://example.com/landing?x=1',
      });
      assert.equal(first.statusCode, 200, first.body);
      assert.equal((await submit(f.id, { mobile: '+12015550172', firstName: 'Bob' })).statusCode, 200);
      const res = await call(svc.api, 'GET', forms(a, `/${f.id}/conversions`), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const { data, pagination } = body(res);
      assert.equal(pagination.totalCount, 2);
      assert.equal(data[0].contact.firstName, 'Bob');
      const ada = data[1];
      assert.equal(ada.contact.firstName, 'Ada');
      assert.equal(ada.contact.lastName, 'Lovelace');
      assert.equal(ada.contact.mobile, '+12015550171');
      assert.equal(ada.contact.country, 'US');
      assert.equal(ada.contact.email, 'ada@example.com');
      assert.ok(ada.contact.id);
      assert.equal(ada.pageUrl, 'https://example.com/landing?x=1');
      assert.equal(typeof ada.ip, 'string');
      assert.ok(Date.parse(ada.submitted) > 0);
      assert.deepEqual(ada.submittedFields, {
        mobile: '+12015550171',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        plan: 'pro',
      });
      const today = new Date().toISOString().slice(0, 10);
      const inRange = body(
        await call(svc.api, 'GET', forms(a, `/${f.id}/conversions?start=${today}&end=${today}&limit=1`), {
          auth: a.auth,
        }),
      );
      assert.equal(inRange.data.length, 1);
      assert.equal(inRange.pagination.totalCount, 2);
      assert.equal(inRange.pagination.hasNext, true);
      const before = body(
        await call(svc.api, 'GET', forms(a, `/${f.id}/conversions?end=2020-01-01`), { auth: a.auth }),
      );
      assert.equal(before.pagination.totalCount, 0);
      const later = body(
        await call(
          svc.api,
          'GET',
          forms(a, `/${f.id}/conversions?start=${new Date(Date.now() + 3_600_000).toISOString()}`),
          {
            auth: a.auth,
          },
        ),
      );
      assert.equal(later.pagination.totalCount, 0);
    });

    it('rejects bad dates, start after end and a bad page with 400', async () => {
      const f = await newForm(a);
      for (const qs of ['start=soon', 'end=2025-13-01', 'start=2025-03-02&end=2025-03-01', 'limit=101']) {
        const res = await call(svc.api, 'GET', forms(a, `/${f.id}/conversions?${qs}`), { auth: a.auth });
        assert.equal(res.statusCode, 400, qs);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it("answers 404 FORM-001 for another account's form and 401 without a token", async () => {
      const theirs = await newForm(b);
      const res = await call(svc.api, 'GET', forms(a, `/${theirs.id}/conversions`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'FORM-001');
      assert.equal((await call(svc.api, 'GET', forms(a, `/${theirs.id}/conversions`))).statusCode, 401);
    });
  });
});
