import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

describe('hosted lead forms (public listener)', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const api = (acc: TestAccount, rest: string) => `/v1/accounts/${acc.accountId}${rest}`;
  const mobile = () => `+1201555${String(2000 + seq++).padStart(4, '0')}`;
  const newList = async (acc: TestAccount) =>
    body(await call(svc.api, 'POST', api(acc, '/lists'), { auth: acc.auth, json: { name: `L${seq++}` } }))
      .data;
  const newForm = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', api(acc, '/forms'), {
      auth: acc.auth,
      json: { name: `Form ${seq++}`, active: true, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const getForm = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', api(acc, `/forms/${id}`), { auth: acc.auth })).data;
  const post = (formId: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    call(svc.externals, 'POST', `/f/${formId}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(fields).toString(),
    });
  const contactByMobile = async (acc: TestAccount, number: string) => {
    const res = await call(svc.api, 'GET', api(acc, `/contacts?mobile=${encodeURIComponent(number)}`), {
      auth: acc.auth,
    });
    return body(res).data[0];
  };
  const messagesOf = async (acc: TestAccount, contactId: string) =>
    body(await call(svc.api, 'GET', api(acc, `/messages?contactId=${contactId}`), { auth: acc.auth })).data;
  const conversions = async (acc: TestAccount, formId: string) =>
    body(await call(svc.api, 'GET', api(acc, `/forms/${formId}/conversions?limit=100`), { auth: acc.auth }))
      .data;
  const events = async (acc: TestAccount, type: string) =>
    (
      await svc.db.query(
        'SELECT data FROM events WHERE account_id = $1 AND type = $2 ORDER BY created_at, id',
        [acc.accountId, type],
      )
    ).rows.map((r) => r.data);

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 100 });
    // The tests read a's contact-created events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created']);
  });
  after(() => svc.close());

  describe('GET /f/:formId', () => {
    it('serves the form as an HTML page and counts an impression per view', async () => {
      const f = await newForm(a, {
        description: 'Join us',
        fields: [
          { name: 'firstName', required: true },
          { name: 'email' },
          { name: 'size', type: 'select', options: ['S', 'M'] },
        ],
        consentText: 'I agree to receive texts.',
        submitLabel: 'Join',
      });
      const res = await call(svc.externals, 'GET', `/f/${f.id}`, {
        headers: { referer: 'https://shop.example/page' },
      });
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.headers['content-security-policy'] as string, /default-src 'none'/);
      for (const part of [
        `<h1>${f.name}</h1>`,
        'name="mobile"',
        'type="tel"',
        'name="firstName"',
        'type="email"',
        '<option value="M">M</option>',
        'name="_consent"',
        'I agree to receive texts.',
        'name="homepage"',
        'value="https://shop.example/page"',
        '>Join</button>',
      ]) {
        assert.ok(res.body.includes(part), part);
      }
      await call(svc.externals, 'GET', `/f/${f.id}`);
      assert.equal((await getForm(a, f.id)).impressions, 2);
    });

    it('answers a 404 page for an unknown, malformed, inactive or deleted form and counts nothing', async () => {
      const inactive = await newForm(a, { active: false });
      for (const id of ['01937c1e-0000-7000-8000-00000000abcd', 'nope', inactive.id]) {
        const res = await call(svc.externals, 'GET', `/f/${id}`);
        assert.equal(res.statusCode, 404, id);
        assert.match(res.headers['content-type'] as string, /^text\/html/);
        assert.match(res.body, /Form not available/);
      }
      assert.equal((await getForm(a, inactive.id)).impressions, 0);
    });

    it('escapes every piece of text the account or the visitor controls', async () => {
      const evil = '<script>alert(1)</script>"\'';
      const f = await newForm(a, {
        name: evil,
        description: evil,
        consentText: evil,
        fields: [{ name: 'notes', label: evil, type: 'select', options: [evil] }],
      });
      const res = await call(
        svc.externals,
        'GET',
        `/f/${f.id}?pageUrl=${encodeURIComponent('https://x.example/"><script>')}`,
      );
      assert.equal(res.statusCode, 200);
      assert.ok(!res.body.includes('<script>'), 'no raw script tag');
      assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;'));
      assert.ok(!res.body.includes('"><script>'));
    });
  });

  describe('POST /f/:formId', () => {
    it('creates the contact, joins the list, records and counts the conversion and queues the confirmation text', async () => {
      const list = await newList(a);
      const f = await newForm(a, {
        fields: [{ name: 'firstName', required: true }, { name: 'lastName' }, { name: 'plan' }],
        listId: list.id,
        confirmationMessage: 'Thanks {{{firstName}}}, your plan: {{{plan}}}.',
      });
      const number = mobile();
      const res = await post(
        f.id,
        { mobile: number, firstName: 'Grace', lastName: '', plan: 'gold' },
        { referer: 'https://shop.example/landing' },
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /Thank you/);

      const contact = await contactByMobile(a, number);
      assert.equal(contact.firstName, 'Grace');
      assert.equal(contact.lastName, undefined);
      assert.deepEqual(contact.attributes, { plan: 'gold' });
      assert.ok(contact.lists.some((l: { id: string }) => l.id === list.id));
      assert.ok((await events(a, 'contact-created')).some((e) => e.id === contact.id));

      const msgs = await messagesOf(a, contact.id);
      assert.equal(msgs.length, 1);
      assert.equal(msgs[0].message, 'Thanks Grace, your plan: gold.');
      assert.equal(msgs[0].status, 'queued');
      assert.equal(msgs[0].outgoing, true);

      const [conv] = await conversions(a, f.id);
      assert.equal(conv.contact.id, contact.id);
      assert.equal(conv.pageUrl, 'https://shop.example/landing');
      assert.equal(conv.confirmation.messageId, msgs[0].id);
      assert.equal(conv.confirmation.error, undefined);
      assert.deepEqual(conv.submittedFields, { mobile: number, firstName: 'Grace', plan: 'gold' });
      assert.equal((await getForm(a, f.id)).conversions, 1);
      const members = body(
        await call(svc.api, 'GET', api(a, `/lists/${list.id}/contacts`), { auth: a.auth }),
      );
      assert.deepEqual(
        members.data.map((c: { id: string }) => c.id),
        [contact.id],
      );
    });

    it('updates an existing contact (contact-updated), merging attributes, and accepts JSON', async () => {
      const number = mobile();
      const created = await call(svc.api, 'POST', api(a, '/contacts'), {
        auth: a.auth,
        json: { mobile: number, firstName: 'Old', lastName: 'Name', attributes: { tier: 'b' } },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = body(created).data[0].id;
      const f = await newForm(a, { fields: [{ name: 'firstName' }, { name: 'city' }] });
      const res = await call(svc.externals, 'POST', `/f/${f.id}`, {
        json: { mobile: number, firstName: 'New', city: 'Oslo' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).success, true);
      const contact = await contactByMobile(a, number);
      assert.equal(contact.id, id);
      assert.equal(contact.firstName, 'New');
      assert.equal(contact.lastName, 'Name');
      assert.deepEqual(contact.attributes, { tier: 'b', city: 'Oslo' });
      const updated = await events(a, 'contact-updated');
      assert.ok(updated.some((e) => e.id === id && e.firstName === 'New'));
    });

    it('re-renders the page with 400 and a message per field, keeping (escaped) values; nothing is recorded', async () => {
      const f = await newForm(a, {
        fields: [
          { name: 'firstName', required: true },
          { name: 'email' },
          { name: 'guests', type: 'number' },
          { name: 'day', type: 'date' },
          { name: 'size', type: 'select', options: ['S', 'M'] },
        ],
        consentText: 'I agree.',
      });
      const res = await post(f.id, {
        mobile: '12345',
        firstName: '',
        email: '"><script>alert(1)</script>',
        guests: 'many',
        day: '2025-02-30',
        size: 'XL',
      });
      assert.equal(res.statusCode, 400);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      for (const text of [
        'Enter a valid mobile number.',
        'This field is required.',
        'Enter a valid email address.',
        'Enter a number.',
        'Enter a date (YYYY-MM-DD).',
        'Choose one of the options.',
        'Please give your consent to continue.',
        'value="12345"',
      ]) {
        assert.ok(res.body.includes(text), text);
      }
      assert.ok(!res.body.includes('<script>'));
      assert.ok(res.body.includes('&quot;&gt;&lt;script&gt;'));
      assert.equal((await conversions(a, f.id)).length, 0);
      assert.equal((await getForm(a, f.id)).conversions, 0);
      assert.equal(await contactByMobile(a, '12345'), undefined);
    });

    it('answers JSON submissions with 400 FORM-004 and the field messages', async () => {
      const f = await newForm(a);
      for (const json of [{}, { mobile: 'abc' }, { mobile: ['+12015550100'] }, [1, 2], 'text']) {
        const res = await call(svc.externals, 'POST', `/f/${f.id}`, { json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, 'FORM-004');
        assert.ok(body(res).error.details.fields.mobile);
      }
    });

    it('refuses a filled honeypot silently: the thank-you page, and nothing recorded', async () => {
      const f = await newForm(a, { confirmationMessage: 'hi' });
      const number = mobile();
      const res = await post(f.id, { mobile: number, homepage: 'http://spam.example' });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /Thank you/);
      assert.equal(await contactByMobile(a, number), undefined);
      assert.equal((await conversions(a, f.id)).length, 0);
      assert.equal((await getForm(a, f.id)).conversions, 0);
    });

    it('records a submission from an opted-out contact but sends it nothing', async () => {
      const number = mobile();
      const ours = (
        await svc.db.query(
          `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
          [a.accountId],
        )
      ).rows[0].number;
      const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: number, to: ours, text: 'STOP' },
      });
      assert.equal(stop.statusCode, 200, stop.body);
      const contact = await contactByMobile(a, number);
      const sentBefore = (await messagesOf(a, contact.id)).filter(
        (m: { outgoing: boolean }) => m.outgoing,
      ).length;
      const f = await newForm(a, { confirmationMessage: 'Welcome!', consentText: 'I agree.' });
      const res = await post(f.id, { mobile: number, _consent: 'on' });
      assert.equal(res.statusCode, 200, res.body);
      const after = (await messagesOf(a, contact.id)).filter((m: { outgoing: boolean }) => m.outgoing);
      assert.equal(after.length, sentBefore, 'no confirmation to an opted-out contact');
      const [conv] = await conversions(a, f.id);
      assert.equal(conv.contact.id, contact.id);
      assert.equal(conv.confirmation.messageId, undefined);
      assert.equal(conv.confirmation.error.code, 'CONT-010');
      assert.equal(
        (await contactByMobile(a, number)).optIn,
        contact.optIn,
        'consent does not undo an opt-out',
      );
    });

    it('records a submission from a blocked contact as CONT-011 and sends it nothing', async () => {
      const number = mobile();
      const created = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
        auth: a.auth,
        json: { mobile: { number }, blocked: true },
      });
      assert.equal(created.statusCode, 201, created.body);
      const [contact] = JSON.parse(created.body).data;
      const f = await newForm(a, { confirmationMessage: 'Welcome!' });
      const res = await post(f.id, { mobile: number });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await messagesOf(a, contact.id)).length, 0, 'no confirmation to a blocked contact');
      const [conv] = await conversions(a, f.id);
      assert.equal(conv.contact.id, contact.id);
      assert.equal(conv.confirmation.messageId, undefined);
      assert.deepEqual(conv.confirmation.error, { code: 'CONT-011', description: 'Contact is blocked.' });
    });

    it('sets optIn on consent and keeps the lead when the balance cannot pay for the confirmation', async () => {
      const poor = await svc.newAccount({ balance: 0 });
      const f = await newForm(poor, { confirmationMessage: 'Hello', consentText: 'I agree.' });
      const number = mobile();
      const res = await post(f.id, { mobile: number, _consent: 'on' });
      assert.equal(res.statusCode, 200, res.body);
      const contact = await contactByMobile(poor, number);
      assert.ok(contact.optIn);
      const [conv] = await conversions(poor, f.id);
      assert.equal(conv.confirmation.error.code, 'ACCT-002');
      assert.equal(conv.submittedFields._consent, true);
      assert.equal((await messagesOf(poor, contact.id)).length, 0);
    });

    it('reads only submitted values, even for fields named like Object.prototype members', async () => {
      const f = await newForm(a, { fields: [{ name: 'constructor' }, { name: 'toString', required: true }] });
      const missing = await call(svc.externals, 'POST', `/f/${f.id}`, { json: { mobile: mobile() } });
      assert.equal(missing.statusCode, 400);
      assert.deepEqual(Object.keys(body(missing).error.details.fields), ['toString']);
      const number = mobile();
      const res = await post(f.id, { mobile: number, toString: 'yes' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((await contactByMobile(a, number)).attributes, { toString: 'yes' });
    });

    it('answers hostile input with a 4xx or the thank-you page, never a 5xx', async () => {
      const f = await newForm(a, { fields: [{ name: 'firstName' }, { name: 'n', type: 'number' }] });
      const junk: unknown[] = [
        null,
        '',
        'x'.repeat(5000),
        -1,
        1e308,
        true,
        [],
        {},
        { $gt: '' },
        '😀',
        "'; DROP TABLE contacts; --",
      ];
      const failures: string[] = [];
      for (const v of junk) {
        for (const json of [v, { mobile: v, firstName: v, n: v, homepage: v, _pageUrl: v, _consent: v }]) {
          const res = await call(svc.externals, 'POST', `/f/${f.id}`, { json });
          if (res.statusCode >= 500)
            failures.push(`${JSON.stringify(json).slice(0, 60)} → ${res.statusCode}`);
        }
      }
      for (const payload of ['mobile=%00', 'a=%ZZ&&&=', 'mobile=+12015550100&mobile=x']) {
        const res = await call(svc.externals, 'POST', `/f/${f.id}`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload,
        });
        if (res.statusCode >= 500) failures.push(`${payload} → ${res.statusCode}`);
      }
      const multipart = await call(svc.externals, 'POST', `/f/${f.id}`, {
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        payload: '--x--',
      });
      assert.equal(multipart.statusCode, 415);
      assert.deepEqual(failures, []);
    });

    it('answers a 404 page for an inactive, unknown or malformed form', async () => {
      const f = await newForm(a, { active: false });
      for (const id of [f.id, '01937c1e-0000-7000-8000-00000000abcd', '<x>']) {
        const res = await post(encodeURIComponent(id), { mobile: mobile() });
        assert.equal(res.statusCode, 404, id);
        assert.match(res.body, /Form not available/);
      }
      const json = await call(svc.externals, 'POST', `/f/${f.id}`, { json: { mobile: mobile() } });
      assert.equal(json.statusCode, 404);
      assert.equal(body(json).error.code, 'FORM-001');
      assert.equal((await conversions(a, f.id)).length, 0);
    });
  });
});
