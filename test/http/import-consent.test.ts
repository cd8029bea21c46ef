import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONTACT_IMPORTS } from '../../src/domain/contacts/run-contact-imports.ts';
import { runChunks } from '../../src/domain/jobs/run-chunks.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

let seq = 0;
const nextMobile = () => `+1203${String(7_100_000 + seq++).padStart(7, '0')}`;
const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/contacts/imports`;

describe('POST /v1/accounts/:accountId/contacts/imports with consent', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const post = (acc: TestAccount, csv: string, query: Record<string, string> = {}, auth: object = acc.auth) =>
    svc.api.inject({
      method: 'POST',
      url: `${base(acc)}?${new URLSearchParams(query)}`,
      headers: { ...auth, 'content-type': 'text/csv' },
      payload: csv,
    });
  const work = () => runChunks(svc.db, svc.ctx.log, CONTACT_IMPORTS, 1000, 1000);
  const contact = async (acc: TestAccount, mobile: string) =>
    body(
      await call(
        svc.api,
        'GET',
        `/v1/accounts/${acc.accountId}/contacts?mobile=${encodeURIComponent(mobile)}`,
        {
          auth: acc.auth,
        },
      ),
    ).data[0];
  const get = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `${base(acc)}/${id}`, { auth: acc.auth })).data;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  it('records consent from a yes/no column with its time, as a lead form records it; rows without it are imported as before', async () => {
    const [yes, yesNoTime, no, empty, bad] = [1, 2, 3, 4, 5].map(() => nextMobile());
    const csv =
      'firstName,mobile,SMS consent,Consent date,plan\n' +
      `Ada,${yes},Yes,2026-03-01T10:00:00Z,gold\n` +
      `Bo,${yesNoTime},y,,gold\n` +
      `Cy,${no},no,2026-03-01,gold\n` +
      `Di,${empty},,,gold\n` +
      `Ed,${bad},maybe,,gold\n`;
    const res = await post(a, csv, {
      consentColumn: 'sms_consent',
      consentAtColumn: 'consent date',
      consentText: 'I agree to get offers by text from Kim Flowers.',
    });
    assert.equal(res.statusCode, 202, res.body);
    const imp = body(res).data;
    assert.deepEqual(imp.consent, {
      column: 'SMS consent',
      atColumn: 'Consent date',
      text: 'I agree to get offers by text from Kim Flowers.',
    });
    await work();
    const done = await get(a, imp.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.counts, { total: 5, processed: 5, created: 4, updated: 0, failed: 1 });
    assert.equal(done.errors[0].row, 5);
    assert.equal(done.errors[0].error.code, 'VAL-001');
    assert.match(done.errors[0].error.description, /reads "maybe": write yes or no/);

    const ada = await contact(a, yes);
    assert.equal(ada.attributes.consentText, 'I agree to get offers by text from Kim Flowers.');
    assert.equal(ada.attributes.consentSource, `Contact import (${imp.id})`);
    assert.equal(ada.attributes.consentAt, '2026-03-01T10:00:00.000Z');
    assert.equal(ada.optIn, '2026-03-01T10:00:00.000Z');
    assert.equal(ada.attributes.plan, 'gold');
    assert.equal(ada.attributes['SMS consent'], undefined, 'the consent columns are not attributes');
    assert.equal(ada.attributes['Consent date'], undefined);
    const bo = await contact(a, yesNoTime);
    assert.equal(bo.attributes.consentAt, imp.created.at, 'no time: the import’s');
    for (const m of [no, empty]) {
      const c = await contact(a, m);
      assert.equal(c.attributes.consentText, undefined);
      assert.equal(c.optIn, undefined);
      assert.equal(c.attributes.plan, 'gold');
    }
  });

  it('records one statement for the whole file on every contact, an existing one merged included', async () => {
    const known = nextMobile();
    await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile: known, firstName: 'Known' },
    });
    const fresh = nextMobile();
    const res = await svc.api.inject({
      method: 'POST',
      url: `${base(a)}?${new URLSearchParams({
        mergeStrategy: 'append',
        consentText: 'Yes, text me about my orders and offers.',
        consentDate: '2026-04-12',
        consentMethod: 'the paper sign-up sheet at the shop',
      })}`,
      headers: { ...a.auth, 'content-type': 'text/csv' },
      payload: `mobile\n${known}\n${fresh}\n`,
    });
    assert.equal(res.statusCode, 202, res.body);
    const imp = body(res).data;
    assert.equal(imp.consent.at, '2026-04-12T00:00:00.000Z');
    await work();
    assert.equal((await get(a, imp.id)).counts.failed, 0);
    for (const m of [known, fresh]) {
      const c = await contact(a, m);
      assert.equal(c.attributes.consentText, 'Yes, text me about my orders and offers.');
      assert.equal(
        c.attributes.consentSource,
        `Contact import (${imp.id}), by the paper sign-up sheet at the shop`,
      );
      assert.equal(c.attributes.consentAt, '2026-04-12T00:00:00.000Z');
    }
    assert.equal((await contact(a, known)).firstName, 'Known');
  });

  it('refuses consent options that do not fit the file with 400 VAL-001, staging nothing', async () => {
    const csv = `mobile,consent,when\n${nextMobile()}\n`;
    const cases: [Record<string, string>, RegExp][] = [
      [{ consentColumn: 'agreed' }, /no column "agreed"/],
      [{ consentColumn: 'mobile' }, /contact field/],
      [{ consentColumn: 'consent', consentAtColumn: 'nope' }, /no column "nope"/],
      [{ consentAtColumn: 'when' }, /needs a `consentColumn`/],
      [{ consentColumn: 'consent', consentDate: '2026-01-01' }, /not both/],
      [{ consentText: 'I agree' }, /needs `consentText`.*`consentDate`.*`consentMethod`/],
      [{ consentText: 'I agree', consentDate: '2999-01-01', consentMethod: 'web' }, /not in the future/],
      [{ consentText: 'I agree', consentDate: 'yesterday', consentMethod: 'web' }, /must be a date/],
      [{ consentText: '   ', consentDate: '2026-01-01', consentMethod: 'web' }, /must not be empty/],
      [{ consentText: 'x'.repeat(1001), consentDate: '2026-01-01', consentMethod: 'web' }, /at most 1000/],
      [
        { consentText: 'I agree\u0007', consentDate: '2026-01-01', consentMethod: 'web' },
        /control characters/,
      ],
    ];
    const before = body(await call(svc.api, 'GET', base(a), { auth: a.auth })).pagination.totalCount;
    for (const [query, message] of cases) {
      const res = await post(a, csv, query);
      assert.equal(res.statusCode, 400, `${JSON.stringify(query).slice(0, 80)}: ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-001');
      assert.match(body(res).error.description, message);
    }
    assert.equal(body(await call(svc.api, 'GET', base(a), { auth: a.auth })).pagination.totalCount, before);
  });

  it('keeps hostile statements as text and answers 401 without a token, 404 for another account’s import', async () => {
    const m = nextMobile();
    const hostile = '<script>alert(1)</script> {{{firstName}}} \u202e’"';
    const res = await post(a, `mobile,ok\n${m},YES\n`, { consentColumn: 'ok', consentText: hostile });
    assert.equal(res.statusCode, 202, res.body);
    await work();
    assert.equal((await contact(a, m)).attributes.consentText, hostile);

    const anon = await svc.api.inject({
      method: 'POST',
      url: `${base(a)}?consentColumn=ok`,
      headers: { 'content-type': 'text/csv' },
      payload: `mobile,ok\n${nextMobile()},yes\n`,
    });
    assert.equal(anon.statusCode, 401, anon.body);
    const theirs = await call(svc.api, 'GET', `${base(b)}/${body(res).data.id}`, { auth: b.auth });
    assert.equal(theirs.statusCode, 404, theirs.body);
    const cross = await post(a, `mobile,ok\n${nextMobile()},yes\n`, { consentColumn: 'ok' }, b.auth);
    assert.equal(cross.statusCode, 403, cross.body);
  });
});
