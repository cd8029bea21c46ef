import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const US_RATE = 0.0079;
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** 100 characters with typographic quotes, a dash and an ellipsis: UCS-2 as typed (2 segments), GSM-7 smart-encoded (1). */
const TYPOGRAPHIC = `\u201CHello\u201D \u2014 it\u2019s ready\u2026 ${'x'.repeat(75)}`;
const ENCODED = `"Hello" - it's ready... ${'x'.repeat(75)}`;

describe('smart encoding and validity periods (HTTP)', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  const nextMobile = () => `+1201${String(7_100_000 + seq++).padStart(7, '0')}`;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 50 });
    b = await svc.newAccount({ balance: 50 });
  });
  after(() => svc.close());

  const account = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}`, { auth: acc.auth })).data;
  const put = (acc: TestAccount, json: unknown, auth = acc.auth) =>
    call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}`, { auth, json });
  const send = async (acc: TestAccount, json: object) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
      auth: acc.auth,
      json,
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  const expiresAt = async (acc: TestAccount, id: string) =>
    (
      await svc.db.query('SELECT expires_at, created_at FROM messages WHERE account_id = $1 AND id = $2', [
        acc.accountId,
        id,
      ])
    ).rows[0] as { expires_at: Date | null; created_at: Date };

  describe('account settings (GET and PUT /v1/accounts/{accountId})', () => {
    it('starts with smart encoding on and no validity period (the field left out, not null)', async () => {
      const data = await account(a);
      assert.equal(data.smartEncoding, true);
      assert.equal('validityPeriod' in data, false);
    });

    it('changes the settings, keeps what is left out, and removes the validity with null', async () => {
      const c = await svc.newAccount();
      let res = await put(c, { validityPeriod: 3600 });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.validityPeriod, 3600);
      assert.equal(body(res).data.smartEncoding, true);
      res = await put(c, { smartEncoding: false });
      assert.equal(body(res).data.smartEncoding, false);
      assert.equal(body(res).data.validityPeriod, 3600);
      assert.deepEqual(
        { s: (await account(c)).smartEncoding, v: (await account(c)).validityPeriod },
        { s: false, v: 3600 },
      );
      res = await put(c, { validityPeriod: null });
      assert.equal(res.statusCode, 200);
      assert.equal('validityPeriod' in body(res).data, false);
      assert.equal(body(res).data.updated.by.id, c.clientId);
    });

    it('answers 401 without a token', async () => {
      const res = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}`, {
        json: { smartEncoding: false },
      });
      assert.equal(res.statusCode, 401);
      assert.equal(body(res).error.code, 'AUTH-001');
    });

    it('answers 403 AUTH-004 to a token without account:write, and changes nothing', async () => {
      const reader = await svc.newAccount({ scopes: ['account:read'] });
      const res = await put(reader, { smartEncoding: false });
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-004');
      assert.equal((await account(reader)).smartEncoding, true);
    });

    it("answers 403 AUTH-003 for another account's settings, and changes nothing", async () => {
      const res = await put(b, { smartEncoding: false }, a.auth);
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-003');
      assert.equal((await account(b)).smartEncoding, true);
    });

    it('refuses values out of bounds or of the wrong type with 400 VAL-001 in the envelope', async () => {
      const bad: unknown[] = [
        { validityPeriod: 0 },
        { validityPeriod: -5 },
        { validityPeriod: 604_801 },
        { validityPeriod: 1.5 },
        { validityPeriod: 'an hour' },
        { validityPeriod: 1e308 },
        { validityPeriod: { seconds: 60 } },
        { validityPeriod: [60, 120] },
        { smartEncoding: 'yes' },
        { smartEncoding: { on: true } },
      ];
      for (const json of bad) {
        const res = await put(a, json);
        assert.equal(res.statusCode, 400, `${JSON.stringify(json)}: ${res.body}`);
        const err = body(res);
        assert.equal(err.success, false);
        assert.equal(err.error.code, 'VAL-001', JSON.stringify(json));
      }
      const data = await account(a);
      assert.equal(data.smartEncoding, true);
      assert.equal('validityPeriod' in data, false);
    });

    it('refuses a body that is not an object', async () => {
      for (const jsonText of ['[]', '"x"', '12', 'null']) {
        const res = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}`, { auth: a.auth, jsonText });
        assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${jsonText}: ${res.statusCode}`);
        assert.equal(body(res).success, false);
      }
    });
  });

  describe('smart encoding on POST /v1/accounts/{accountId}/messages', () => {
    it('sends typographic quotes, dashes and ellipses as GSM-7: one segment, priced as one', async () => {
      const data = await send(a, { contacts: [{ mobile: { number: nextMobile() } }], template: TYPOGRAPHIC });
      const [m] = data.messages;
      assert.equal(m.message, ENCODED);
      assert.equal(m.segments, 1);
      assert.equal(m.price, US_RATE);
      assert.equal(data.estimatedPrice, US_RATE);
      const { rows } = await svc.db.query(
        'SELECT body, encoding FROM messages WHERE account_id = $1 AND id = $2',
        [a.accountId, m.id],
      );
      assert.deepEqual(rows[0], { body: ENCODED, encoding: 'GSM-7' });
    });

    it('keeps the text as typed with `smartEncoding: false`: UCS-2, two segments, twice the price', async () => {
      const data = await send(a, {
        contacts: [{ mobile: { number: nextMobile() } }],
        template: TYPOGRAPHIC,
        smartEncoding: false,
      });
      const [m] = data.messages;
      assert.equal(m.message, TYPOGRAPHIC);
      assert.equal(m.segments, 2);
      assert.equal(m.price, round4(2 * US_RATE));
    });

    it('encodes merged-in values too (rendered in SQL for every recipient), and only when asked', async () => {
      const mobiles = [nextMobile(), nextMobile()];
      const contacts = mobiles.map((number, i) => ({
        mobile: { number },
        firstName: i ? 'Zo\u00EB\u2019s' : 'O\u2019Brien',
      }));
      const on = await send(a, { contacts, template: 'Hi {{{firstName}}} \u2013 see you' });
      const bodies = on.messages.map((m: { message: string }) => m.message).sort();
      assert.deepEqual(bodies, ["Hi O'Brien - see you", "Hi Zo\u00EB's - see you"].sort());
      const { rows } = await svc.db.query(
        'SELECT DISTINCT encoding FROM messages WHERE account_id = $1 AND job_id = $2',
        [a.accountId, on.jobId],
      );
      // ë is not GSM-7: that recipient's text stays UCS-2; O'Brien's is GSM-7.
      assert.deepEqual(rows.map((r) => r.encoding).sort(), ['GSM-7', 'UCS-2']);
      const off = await send(a, {
        contacts: [{ id: on.messages[0].contact.id }],
        template: 'Hi {{{firstName}}}',
        smartEncoding: false,
      });
      assert.match(off.messages[0].message, /\u2019/);
    });

    it("follows the account's setting when the send does not say", async () => {
      const c = await svc.newAccount({ balance: 5 });
      assert.equal((await put(c, { smartEncoding: false })).statusCode, 200);
      const off = await send(c, { contacts: [{ mobile: { number: nextMobile() } }], template: TYPOGRAPHIC });
      assert.equal(off.messages[0].message, TYPOGRAPHIC);
      assert.equal(off.messages[0].segments, 2);
      const on = await send(c, {
        contacts: [{ mobile: { number: nextMobile() } }],
        template: TYPOGRAPHIC,
        smartEncoding: true,
      });
      assert.equal(on.messages[0].segments, 1);
    });

    it("counts a template's segments as it would be sent, by the account's setting", async () => {
      const c = await svc.newAccount();
      const create = await call(svc.api, 'POST', `/v1/accounts/${c.accountId}/templates`, {
        auth: c.auth,
        json: { name: 'typographic', template: TYPOGRAPHIC },
      });
      assert.equal(create.statusCode, 201, create.body);
      const [t] = body(create).data;
      assert.deepEqual(
        { segments: t.segments, encoding: t.encoding, template: t.template },
        {
          segments: 1,
          encoding: 'GSM-7',
          template: TYPOGRAPHIC,
        },
      );
      await put(c, { smartEncoding: false });
      const again = body(
        await call(svc.api, 'GET', `/v1/accounts/${c.accountId}/templates/${t.id}`, { auth: c.auth }),
      ).data;
      assert.deepEqual(
        { segments: again.segments, encoding: again.encoding },
        { segments: 2, encoding: 'UCS-2' },
      );
    });

    it('prices a scheduled send on the encoded text', async () => {
      const sendAt = new Date(Date.now() + 3_600_000).toISOString();
      const data = await send(a, {
        contacts: [{ mobile: { number: nextMobile() } }],
        template: TYPOGRAPHIC,
        sendAt,
      });
      assert.equal(data.estimatedPrice, US_RATE);
    });
  });

  describe('validityPeriod on POST /v1/accounts/{accountId}/messages', () => {
    it('sets each queued message to expire that many seconds after acceptance', async () => {
      const data = await send(a, {
        contacts: [{ mobile: { number: nextMobile() } }],
        template: 'valid for a minute',
        validityPeriod: 60,
      });
      const row = await expiresAt(a, data.messages[0].id);
      assert.ok(row.expires_at, 'expires_at is set');
      const seconds = ((row.expires_at as Date).getTime() - row.created_at.getTime()) / 1000;
      // now() is the transaction's start: the two instants differ by exactly the validity.
      assert.equal(Math.round(seconds), 60);
    });

    it("falls back to the account's default, and a send's own value wins over it", async () => {
      const c = await svc.newAccount({ balance: 5 });
      await put(c, { validityPeriod: 900 });
      const dflt = await send(c, { contacts: [{ mobile: { number: nextMobile() } }], template: 'default' });
      const own = await send(c, {
        contacts: [{ mobile: { number: nextMobile() } }],
        template: 'own',
        validityPeriod: 30,
      });
      const d = await expiresAt(c, dflt.messages[0].id);
      const o = await expiresAt(c, own.messages[0].id);
      assert.equal(Math.round(((d.expires_at as Date).getTime() - d.created_at.getTime()) / 1000), 900);
      assert.equal(Math.round(((o.expires_at as Date).getTime() - o.created_at.getTime()) / 1000), 30);
    });

    it('sets no expiry without a validity anywhere, and none on a message that failed at acceptance', async () => {
      const data = await send(b, { contacts: [{ mobile: { number: nextMobile() } }], template: 'forever' });
      assert.equal((await expiresAt(b, data.messages[0].id)).expires_at, null);
      const mixed = await send(b, {
        contacts: [{ mobile: { number: nextMobile() } }, { mobile: { number: '12' } }],
        template: 'one of two',
        validityPeriod: 60,
      });
      const failed = mixed.messages.find((m: { status: string }) => m.status === 'failed');
      const queued = mixed.messages.find((m: { status: string }) => m.status === 'queued');
      assert.equal((await expiresAt(b, failed.id)).expires_at, null);
      assert.ok((await expiresAt(b, queued.id)).expires_at);
    });

    it('refuses a validity out of bounds or of the wrong type with 400 VAL-001, queueing nothing', async () => {
      const before = (
        await svc.db.query('SELECT count(*)::int AS n FROM messages WHERE account_id = $1', [a.accountId])
      ).rows[0].n;
      for (const validityPeriod of [0, -1, 604_801, 2.5, 'a minute', 1e20, { s: 1 }, [1, 2]]) {
        const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
          auth: a.auth,
          json: { contacts: [{ mobile: { number: nextMobile() } }], template: 'x', validityPeriod },
        });
        assert.equal(res.statusCode, 400, `${JSON.stringify(validityPeriod)}: ${res.body}`);
        assert.equal(body(res).error.code, 'VAL-001');
      }
      for (const smartEncoding of ['maybe', { on: true }, [true, false]]) {
        const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
          auth: a.auth,
          json: { contacts: [{ mobile: { number: nextMobile() } }], template: 'x', smartEncoding },
        });
        assert.equal(res.statusCode, 400, `${JSON.stringify(smartEncoding)}: ${res.body}`);
      }
      const afterCount = (
        await svc.db.query('SELECT count(*)::int AS n FROM messages WHERE account_id = $1', [a.accountId])
      ).rows[0].n;
      assert.equal(afterCount, before);
    });
  });
});
