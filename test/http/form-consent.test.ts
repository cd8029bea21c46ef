import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('consent given on a lead form is kept with the contact', () => {
  let svc: TestService;
  let a: TestAccount;
  const api = (rest: string) => `/v1/accounts/${a.accountId}${rest}`;
  const submit = (formId: string, fields: Record<string, string>) =>
    call(svc.externals, 'POST', `/f/${formId}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const contact = async (number: string) =>
    body(await call(svc.api, 'GET', api(`/contacts?mobile=${encodeURIComponent(number)}`), { auth: a.auth }))
      .data[0];

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 10 });
  });
  after(() => svc.close());

  it('stores the statement shown, the form it was given on and the time, as the contact’s fields', async () => {
    const res = await call(svc.api, 'POST', api('/forms'), {
      auth: a.auth,
      json: { name: 'Spring sign-up', active: true, consentText: 'I agree to receive marketing texts.' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const formId = body(res).data.id;
    const before = Date.now();
    const sent = await submit(formId, { mobile: '+12015553001', _consent: 'on' });
    assert.ok(sent.statusCode < 400, sent.body);
    const c = await contact('+12015553001');
    assert.equal(c.attributes.consentText, 'I agree to receive marketing texts.');
    assert.equal(c.attributes.consentSource, 'Lead form “Spring sign-up”');
    const at = Date.parse(c.attributes.consentAt);
    assert.ok(at >= before - 1000 && at <= Date.now() + 1000, c.attributes.consentAt);
    assert.ok(c.optIn, 'and the opt-in time is set');
  });

  it('stores nothing of the kind for a form that asks no consent', async () => {
    const res = await call(svc.api, 'POST', api('/forms'), {
      auth: a.auth,
      json: { name: 'Plain', active: true },
    });
    const sent = await submit(body(res).data.id, { mobile: '+12015553002' });
    assert.ok(sent.statusCode < 400, sent.body);
    const c = await contact('+12015553002');
    assert.equal(c.attributes.consentText, undefined);
  });
});
