import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('templates', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';
  const templates = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/templates${rest}`;
  const newTemplate = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', templates(acc), {
      auth: acc.auth,
      json: { name: `Template ${seq++}`, template: 'Hello {{{firstName}}}', ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0];
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/templates', () => {
    it('creates a template in the Message template shape with type SMS by default', async () => {
      const res = await call(svc.api, 'POST', templates(a), {
        auth: a.auth,
        json: {
          name: 'Welcome',
          template: 'Hi {{{firstName}}}, your plan is {{{ plan }}}. Bye {{{contact.firstName}}}',
          media: [{ url: 'https://cdn.example.com/a.png', type: 'image/png', name: 'A', filename: 'a.png' }],
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      const [t] = body(res).data;
      assert.match(t.id, /^[0-9a-f-]{36}$/);
      assert.equal(t.name, 'Welcome');
      assert.equal(t.type, 'SMS');
      assert.equal(t.template, 'Hi {{{firstName}}}, your plan is {{{ plan }}}. Bye {{{contact.firstName}}}');
      assert.deepEqual(t.media, [
        { url: 'https://cdn.example.com/a.png', type: 'image/png', name: 'A', filename: 'a.png' },
      ]);
      assert.deepEqual(t.mergeFields, ['firstName', 'attributes.plan']);
      assert.equal(t.encoding, 'GSM-7');
      assert.equal(t.segments, 1);
      assert.match(t.created.at, /Z$/);
      assert.equal(t.created.by.id, a.clientId);
      assert.equal(t.updated.at, t.created.at);
    });

    it('shows an emoji template as UCS-2 and counts its segments', async () => {
      const t = await newTemplate(a, { template: `Party time 🎉 ${'x'.repeat(60)}`, type: 'Web' });
      assert.equal(t.type, 'Web');
      assert.equal(t.encoding, 'UCS-2');
      // 11 + 2 (the emoji is two UTF-16 units) + 1 + 60 = 74 units: over 70, so two 67-unit parts.
      assert.equal(t.segments, 2);
      assert.deepEqual(t.mergeFields, []);
      assert.deepEqual(t.media, []);
    });

    it('counts a long GSM-7 template in 153-septet parts', async () => {
      const t = await newTemplate(a, { template: 'a'.repeat(161) });
      assert.equal(t.encoding, 'GSM-7');
      assert.equal(t.segments, 2);
    });

    it('accepts the same name twice: the id identifies a template', async () => {
      const one = await newTemplate(a, { name: 'Twin' });
      const two = await newTemplate(a, { name: 'Twin' });
      assert.notEqual(one.id, two.id);
    });

    it('rejects a template without a name or text with 400 VAL-001', async () => {
      for (const json of [
        { template: 'Hi' },
        { name: 'X' },
        { name: '', template: 'Hi' },
        { name: 'X', template: '' },
      ]) {
        const res = await call(svc.api, 'POST', templates(a), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it('rejects a name over 200 or a text over 1600 characters with 400', async () => {
      const long = await call(svc.api, 'POST', templates(a), {
        auth: a.auth,
        json: { name: 'n'.repeat(201), template: 'Hi' },
      });
      assert.equal(long.statusCode, 400);
      const longText = await call(svc.api, 'POST', templates(a), {
        auth: a.auth,
        json: { name: 'X', template: 't'.repeat(1601) },
      });
      assert.equal(longText.statusCode, 400);
      const max = await newTemplate(a, { name: 'n'.repeat(200), template: 't'.repeat(1600) });
      assert.equal(max.template.length, 1600);
    });

    it('rejects an unknown type with 400', async () => {
      const res = await call(svc.api, 'POST', templates(a), {
        auth: a.auth,
        json: { name: 'X', template: 'Hi', type: 'MMS' },
      });
      assert.equal(res.statusCode, 400);
    });

    it('rejects media that is not an absolute http(s) URL with 400', async () => {
      for (const url of ['ftp://example.com/a.png', '/relative/a.png', 'not a url', 'javascript:alert(1)']) {
        const res = await call(svc.api, 'POST', templates(a), {
          auth: a.auth,
          json: { name: 'X', template: 'Hi', media: [{ url }] },
        });
        assert.equal(res.statusCode, 400, url);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'POST', templates(a), { json: { name: 'X', template: 'Hi' } });
      assert.equal(res.statusCode, 401);
      assert.equal(body(res).error.code, 'AUTH-001');
    });

    it("answers 403 for another account's path", async () => {
      const res = await call(svc.api, 'POST', templates(b), {
        auth: a.auth,
        json: { name: 'X', template: 'Hi' },
      });
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-003');
    });

    it('answers 403 to a token without templates:write', async () => {
      const reader = await svc.newAccount({ scopes: ['templates:read'] });
      const res = await call(svc.api, 'POST', templates(reader), {
        auth: reader.auth,
        json: { name: 'X', template: 'Hi' },
      });
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'AUTH-004');
    });
  });

  describe('GET /v1/accounts/:accountId/templates', () => {
    it('answers templates newest first with pagination and totalCount', async () => {
      const acc = await svc.newAccount();
      const first = await newTemplate(acc, { name: 'First' });
      const second = await newTemplate(acc, { name: 'Second' });
      const third = await newTemplate(acc, { name: 'Third' });
      const res = await call(svc.api, 'GET', templates(acc, '?limit=2'), { auth: acc.auth });
      assert.equal(res.statusCode, 200, res.body);
      const r = body(res);
      assert.deepEqual(
        r.data.map((t: { id: string }) => t.id),
        [third.id, second.id],
      );
      assert.deepEqual(r.pagination, { limit: 2, offset: 0, hasNext: true, totalCount: 3 });
      const rest = body(await call(svc.api, 'GET', templates(acc, '?limit=2&offset=2'), { auth: acc.auth }));
      assert.deepEqual(
        rest.data.map((t: { id: string }) => t.id),
        [first.id],
      );
      assert.deepEqual(rest.pagination, { limit: 2, offset: 2, hasNext: false, totalCount: 3 });
      assert.equal(rest.data[0].segments, 1);
      assert.deepEqual(rest.data[0].mergeFields, ['firstName']);
    });

    it('filters by partial, case-insensitive name and counts only the matches', async () => {
      const acc = await svc.newAccount();
      await newTemplate(acc, { name: 'Spring sale' });
      await newTemplate(acc, { name: 'Autumn SALE reminder' });
      await newTemplate(acc, { name: 'Welcome' });
      await newTemplate(acc, { name: '100% off' });
      const r = body(await call(svc.api, 'GET', templates(acc, '?name=sale'), { auth: acc.auth }));
      assert.deepEqual(r.data.map((t: { name: string }) => t.name).sort(), [
        'Autumn SALE reminder',
        'Spring sale',
      ]);
      assert.equal(r.pagination.totalCount, 2);
      // LIKE wildcards in the filter match literally.
      const pct = body(await call(svc.api, 'GET', templates(acc, '?name=%25'), { auth: acc.auth }));
      assert.deepEqual(
        pct.data.map((t: { name: string }) => t.name),
        ['100% off'],
      );
      const none = body(await call(svc.api, 'GET', templates(acc, '?name=nothing'), { auth: acc.auth }));
      assert.deepEqual(none.data, []);
      assert.equal(none.pagination.totalCount, 0);
    });

    it("never lists another account's templates", async () => {
      const mine = await svc.newAccount();
      await newTemplate(b, { name: 'Theirs only' });
      const r = body(await call(svc.api, 'GET', templates(mine), { auth: mine.auth }));
      assert.deepEqual(r.data, []);
      assert.equal(r.pagination.totalCount, 0);
    });

    it('rejects limit=0, limit=101 and a negative offset with 400', async () => {
      for (const q of ['?limit=0', '?limit=101', '?offset=-1', '?limit=abc']) {
        const res = await call(svc.api, 'GET', templates(a, q), { auth: a.auth });
        assert.equal(res.statusCode, 400, q);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it('rejects a call without a token with 401', async () => {
      assert.equal((await call(svc.api, 'GET', templates(a))).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      assert.equal((await call(svc.api, 'GET', templates(b), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/templates/:templateId', () => {
    it('answers the template', async () => {
      const t = await newTemplate(a, { name: 'Fetch me', template: 'Code {{{attributes.code}}}' });
      const res = await call(svc.api, 'GET', templates(a, `/${t.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      const got = body(res);
      assert.equal(got.success, true);
      assert.deepEqual(got.data, t);
      assert.deepEqual(got.data.mergeFields, ['attributes.code']);
    });

    it("answers 404 TMPL-001 for another account's template", async () => {
      const theirs = await newTemplate(b);
      const res = await call(svc.api, 'GET', templates(a, `/${theirs.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'TMPL-001');
    });

    it('answers 404 TMPL-001 for a non-UUID id and for an unknown id', async () => {
      for (const id of ['not-a-uuid', NOT_THERE]) {
        const res = await call(svc.api, 'GET', templates(a, `/${id}`), { auth: a.auth });
        assert.equal(res.statusCode, 404, id);
        assert.equal(body(res).error.code, 'TMPL-001');
      }
    });

    it('rejects a call without a token with 401', async () => {
      const t = await newTemplate(a);
      assert.equal((await call(svc.api, 'GET', templates(a, `/${t.id}`))).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      const t = await newTemplate(b);
      assert.equal((await call(svc.api, 'GET', templates(b, `/${t.id}`), { auth: a.auth })).statusCode, 403);
    });
  });

  describe('PUT /v1/accounts/:accountId/templates/:templateId', () => {
    it('updates the given fields only and stamps updated', async () => {
      const t = await newTemplate(a, {
        name: 'Before',
        template: 'Hello',
        media: [{ url: 'https://cdn.example.com/1.png' }],
      });
      const res = await call(svc.api, 'PUT', templates(a, `/${t.id}`), {
        auth: a.auth,
        json: { template: 'Hello {{{lastName}}} 😀' },
      });
      assert.equal(res.statusCode, 200, res.body);
      const u = body(res).data;
      assert.equal(u.id, t.id);
      assert.equal(u.name, 'Before');
      assert.equal(u.type, 'SMS');
      assert.deepEqual(u.media, [{ url: 'https://cdn.example.com/1.png' }]);
      assert.equal(u.template, 'Hello {{{lastName}}} 😀');
      assert.deepEqual(u.mergeFields, ['lastName']);
      assert.equal(u.encoding, 'UCS-2');
      assert.deepEqual(u.created, t.created);
      assert.ok(u.updated.at >= t.updated.at);

      const again = body(
        await call(svc.api, 'PUT', templates(a, `/${t.id}`), {
          auth: a.auth,
          json: { name: 'After', type: 'Web', media: [] },
        }),
      ).data;
      assert.equal(again.name, 'After');
      assert.equal(again.type, 'Web');
      assert.deepEqual(again.media, []);
      assert.equal(again.template, 'Hello {{{lastName}}} 😀');
      // The change is stored, not only answered.
      const read = body(await call(svc.api, 'GET', templates(a, `/${t.id}`), { auth: a.auth })).data;
      assert.deepEqual(read, again);
    });

    it('rejects an empty name, an over-long text, a bad type or bad media with 400', async () => {
      const t = await newTemplate(a);
      for (const json of [
        { name: '' },
        { template: 'x'.repeat(1601) },
        { type: 'Email' },
        { media: [{ url: 'ftp://example.com/x' }] },
        { media: 'https://example.com/x' },
      ]) {
        const res = await call(svc.api, 'PUT', templates(a, `/${t.id}`), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, 'VAL-001');
      }
      const unchanged = body(await call(svc.api, 'GET', templates(a, `/${t.id}`), { auth: a.auth })).data;
      assert.deepEqual(unchanged, t);
    });

    it("answers 404 TMPL-001 for another account's template and leaves it unchanged", async () => {
      const theirs = await newTemplate(b, { name: 'Theirs' });
      const res = await call(svc.api, 'PUT', templates(a, `/${theirs.id}`), {
        auth: a.auth,
        json: { name: 'Hijacked' },
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'TMPL-001');
      const still = body(await call(svc.api, 'GET', templates(b, `/${theirs.id}`), { auth: b.auth })).data;
      assert.equal(still.name, 'Theirs');
    });

    it('answers 404 TMPL-001 for a non-UUID id', async () => {
      const res = await call(svc.api, 'PUT', templates(a, '/nope'), { auth: a.auth, json: { name: 'X' } });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'TMPL-001');
    });

    it('rejects a call without a token with 401', async () => {
      const t = await newTemplate(a);
      assert.equal(
        (await call(svc.api, 'PUT', templates(a, `/${t.id}`), { json: { name: 'X' } })).statusCode,
        401,
      );
    });

    it("answers 403 for another account's path", async () => {
      const t = await newTemplate(b);
      const res = await call(svc.api, 'PUT', templates(b, `/${t.id}`), { auth: a.auth, json: { name: 'X' } });
      assert.equal(res.statusCode, 403);
    });
  });

  describe('DELETE /v1/accounts/:accountId/templates/:templateId', () => {
    it('deletes the template and answers {success: true}', async () => {
      const t = await newTemplate(a);
      const res = await call(svc.api, 'DELETE', templates(a, `/${t.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res), { success: true });
      const gone = await call(svc.api, 'GET', templates(a, `/${t.id}`), { auth: a.auth });
      assert.equal(gone.statusCode, 404);
      const twice = await call(svc.api, 'DELETE', templates(a, `/${t.id}`), { auth: a.auth });
      assert.equal(twice.statusCode, 404);
      assert.equal(body(twice).error.code, 'TMPL-001');
    });

    it("answers 404 TMPL-001 for another account's template and keeps it", async () => {
      const theirs = await newTemplate(b);
      const res = await call(svc.api, 'DELETE', templates(a, `/${theirs.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'TMPL-001');
      assert.equal(
        (await call(svc.api, 'GET', templates(b, `/${theirs.id}`), { auth: b.auth })).statusCode,
        200,
      );
    });

    it('answers 404 TMPL-001 for a non-UUID id', async () => {
      const res = await call(svc.api, 'DELETE', templates(a, '/123'), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'TMPL-001');
    });

    it('rejects a call without a token with 401', async () => {
      const t = await newTemplate(a);
      assert.equal((await call(svc.api, 'DELETE', templates(a, `/${t.id}`))).statusCode, 401);
    });

    it("answers 403 for another account's path", async () => {
      const t = await newTemplate(b);
      assert.equal(
        (await call(svc.api, 'DELETE', templates(b, `/${t.id}`), { auth: a.auth })).statusCode,
        403,
      );
    });
  });
});
