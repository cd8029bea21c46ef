import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('tracked links', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';
  const links = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/links${rest}`;
  const newLink = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', links(acc), {
      auth: acc.auth,
      json: { url: `https://example.com/p/${seq++}`, ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data;
  };
  const click = (path: string) => call(svc.externals, 'GET', new URL(path).pathname + new URL(path).search);
  const today = () => new Date().toISOString().slice(0, 10);

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/links', () => {
    it('creates a link (201) with an unguessable slug and a short URL on the public listener', async () => {
      const res = await call(svc.api, 'POST', links(a), {
        auth: a.auth,
        json: { url: 'https://example.com/offer?a=1&b=ü', name: 'Spring offer' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const l = body(res).data;
      assert.equal(l.name, 'Spring offer');
      assert.equal(l.url, 'https://example.com/offer?a=1&b=%C3%BC');
      assert.match(l.slug, /^[A-Za-z0-9]{10}$/);
      assert.equal(l.shortUrl, `${svc.config.externalsUrl}/l/${l.slug}`);
      assert.equal(l.clicks, 0);
      assert.ok(l.created.at && l.updated.at);
      const other = await newLink(a, { url: 'https://example.com/offer?a=1&b=ü' });
      assert.notEqual(other.slug, l.slug);
      assert.equal(other.name, other.url, 'the name defaults to the URL');
    });

    it('accepts only absolute http(s) URLs: 400 LINK-003 or VAL-001 otherwise', async () => {
      const cases: [object, string][] = [
        [{ url: 'javascript:alert(1)' }, 'LINK-003'],
        [{ url: 'ftp://example.com/file' }, 'LINK-003'],
        [{ url: '/relative/path' }, 'LINK-003'],
        [{ url: 'data:text/html,hi' }, 'LINK-003'],
        [{ url: 'https://user:pw@example.com/' }, 'LINK-003'],
        [{ url: 'not a url' }, 'LINK-003'],
        [{ url: '' }, 'VAL-001'],
        [{ name: 'no url' }, 'VAL-001'],
        [{ url: `https://example.com/${'x'.repeat(2100)}` }, 'VAL-001'],
        [{ url: 'https://example.com', name: '' }, 'VAL-001'],
      ];
      for (const [json, code] of cases) {
        const res = await call(svc.api, 'POST', links(a), { auth: a.auth, json });
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).error.code, code, JSON.stringify(json));
      }
    });

    it("answers 401 without a token, 403 for another account's path and without links:write", async () => {
      assert.equal(
        (await call(svc.api, 'POST', links(a), { json: { url: 'https://x.example' } })).statusCode,
        401,
      );
      const other = await call(svc.api, 'POST', links(b), {
        auth: a.auth,
        json: { url: 'https://x.example' },
      });
      assert.equal(other.statusCode, 403);
      const reader = await svc.newAccount({ scopes: ['links:read'] });
      const ro = await call(svc.api, 'POST', links(reader), {
        auth: reader.auth,
        json: { url: 'https://x.example' },
      });
      assert.equal(ro.statusCode, 403);
      assert.equal(body(ro).error.code, 'AUTH-004');
    });
  });

  describe('GET /v1/accounts/:accountId/links and …/links/:linkId', () => {
    it('lists newest first with clicks, pages, filters by name or URL, and never shows another account’s', async () => {
      const acc = await svc.newAccount();
      await newLink(acc, { name: 'Alpha', url: 'https://alpha.example/' });
      const beta = await newLink(acc, { name: 'Beta', url: 'https://beta.example/' });
      await newLink(b, { name: 'Alpha of b' });
      assert.equal((await click(beta.shortUrl)).statusCode, 302);
      const all = body(await call(svc.api, 'GET', links(acc, '?limit=1'), { auth: acc.auth }));
      assert.equal(all.data.length, 1);
      assert.equal(all.data[0].name, 'Beta');
      assert.equal(all.data[0].clicks, 1);
      assert.equal(all.pagination.totalCount, 2);
      assert.equal(all.pagination.hasNext, true);
      const alpha = body(await call(svc.api, 'GET', links(acc, '?name=ALPHA'), { auth: acc.auth }));
      assert.deepEqual(
        alpha.data.map((l: { name: string }) => l.name),
        ['Alpha'],
      );
      const byUrl = body(await call(svc.api, 'GET', links(acc, '?name=beta.example'), { auth: acc.auth }));
      assert.equal(byUrl.data.length, 1);
    });

    it('answers one link with its clicks, and 404 LINK-001 for another account’s, an unknown id and a non-id', async () => {
      const l = await newLink(a);
      await click(l.shortUrl);
      await click(l.shortUrl);
      const res = await call(svc.api, 'GET', links(a, `/${l.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.clicks, 2);
      assert.equal(body(res).data.url, l.url);
      const theirs = await newLink(b);
      for (const id of [theirs.id, NOT_THERE, 'nope']) {
        const r = await call(svc.api, 'GET', links(a, `/${id}`), { auth: a.auth });
        assert.equal(r.statusCode, 404, id);
        assert.equal(body(r).error.code, 'LINK-001');
      }
    });

    it('rejects a bad page with 400 and answers 401 without a token', async () => {
      for (const qs of ['limit=0', 'limit=101', 'offset=-1']) {
        const res = await call(svc.api, 'GET', links(a, `?${qs}`), { auth: a.auth });
        assert.equal(res.statusCode, 400, qs);
        assert.equal(body(res).error.code, 'VAL-001');
      }
      assert.equal((await call(svc.api, 'GET', links(a))).statusCode, 401);
      assert.equal((await call(svc.api, 'GET', links(a, `/${NOT_THERE}`))).statusCode, 401);
    });
  });

  describe('DELETE /v1/accounts/:accountId/links/:linkId', () => {
    it('deletes the link; its short URL answers 404 from then on', async () => {
      const l = await newLink(a);
      const res = await call(svc.api, 'DELETE', links(a, `/${l.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(body(res), { success: true });
      assert.equal((await call(svc.api, 'GET', links(a, `/${l.id}`), { auth: a.auth })).statusCode, 404);
      assert.equal((await click(l.shortUrl)).statusCode, 404);
    });

    it("answers 404 LINK-001 for another account's link (kept) and 401 without a token", async () => {
      const theirs = await newLink(b);
      const res = await call(svc.api, 'DELETE', links(a, `/${theirs.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'LINK-001');
      assert.equal((await click(theirs.shortUrl)).statusCode, 302);
      assert.equal((await call(svc.api, 'DELETE', links(a, `/${theirs.id}`))).statusCode, 401);
    });
  });

  describe('GET …/links/:linkId/sources', () => {
    it('lists the direct source with its short URL and clicks', async () => {
      const l = await newLink(a);
      await click(l.shortUrl);
      const res = await call(svc.api, 'GET', links(a, `/${l.id}/sources`), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const { data, pagination } = body(res);
      assert.equal(pagination.totalCount, 1);
      assert.equal(data[0].type, 'direct');
      assert.equal(data[0].key, undefined);
      assert.equal(data[0].shortUrl, l.shortUrl);
      assert.equal(data[0].job, undefined);
      assert.equal(data[0].clicks, 1);
    });

    it("rejects a bad page with 400, answers 404 LINK-001 for another account's link and 401 without a token", async () => {
      const l = await newLink(a);
      assert.equal(
        (await call(svc.api, 'GET', links(a, `/${l.id}/sources?limit=0`), { auth: a.auth })).statusCode,
        400,
      );
      const theirs = await newLink(b);
      const res = await call(svc.api, 'GET', links(a, `/${theirs.id}/sources`), { auth: a.auth });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'LINK-001');
      assert.equal((await call(svc.api, 'GET', links(a, `/${l.id}/sources`))).statusCode, 401);
    });
  });

  describe('GET …/links/:linkId/sources/:sourceId/stats', () => {
    it('answers clicks per day as {date, value}, every day of the range listed', async () => {
      const l = await newLink(a);
      for (let i = 0; i < 3; i++) assert.equal((await click(l.shortUrl)).statusCode, 302);
      const [direct] = body(await call(svc.api, 'GET', links(a, `/${l.id}/sources`), { auth: a.auth })).data;
      const d = today();
      const twoAgo = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
      const res = await call(
        svc.api,
        'GET',
        links(a, `/${l.id}/sources/${direct.id}/stats?start=${twoAgo}&end=${d}`),
        {
          auth: a.auth,
        },
      );
      assert.equal(res.statusCode, 200, res.body);
      const { data, pagination } = body(res);
      assert.equal(data.length, 3);
      assert.deepEqual(data[2], { date: `${d}T00:00:00.000Z`, value: 3 });
      assert.equal(data[0].value, 0);
      assert.equal(data[1].value, 0);
      assert.equal(pagination.totalCount, 3);
      const byName = body(
        await call(svc.api, 'GET', links(a, `/${l.id}/sources/direct/stats`), { auth: a.auth }),
      );
      assert.deepEqual(
        byName.data,
        [{ date: `${d}T00:00:00.000Z`, value: 3 }],
        'default range: the source’s first day to today',
      );
      const paged = body(
        await call(
          svc.api,
          'GET',
          links(a, `/${l.id}/sources/direct/stats?start=${twoAgo}&offset=1&limit=1`),
          {
            auth: a.auth,
          },
        ),
      );
      assert.equal(paged.data.length, 1);
      assert.equal(paged.pagination.hasNext, true);
      const past = body(
        await call(
          svc.api,
          'GET',
          links(a, `/${l.id}/sources/direct/stats?start=2024-01-01&end=2024-01-02`),
          {
            auth: a.auth,
          },
        ),
      );
      assert.deepEqual(
        past.data.map((x: { value: number }) => x.value),
        [0, 0],
      );
    });

    it('rejects malformed dates, start after end and ranges over 366 days with 400 VAL-001', async () => {
      const l = await newLink(a);
      for (const qs of [
        'start=today',
        'end=2025-02-30',
        'start=2025-03-02&end=2025-03-01',
        'start=2020-01-01&end=2025-01-01',
        'limit=0',
      ]) {
        const res = await call(svc.api, 'GET', links(a, `/${l.id}/sources/direct/stats?${qs}`), {
          auth: a.auth,
        });
        assert.equal(res.statusCode, 400, qs);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it("answers 404 LINK-001 for another account's link, LINK-002 for an unknown or another link's source; 401 without a token", async () => {
      const l = await newLink(a);
      const theirs = await newLink(b);
      const res = await call(svc.api, 'GET', links(a, `/${theirs.id}/sources/direct/stats`), {
        auth: a.auth,
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'LINK-001');
      const [theirSource] = body(
        await call(svc.api, 'GET', links(b, `/${theirs.id}/sources`), { auth: b.auth }),
      ).data;
      for (const sourceId of [NOT_THERE, 'nope', theirSource.id]) {
        const r = await call(svc.api, 'GET', links(a, `/${l.id}/sources/${sourceId}/stats`), {
          auth: a.auth,
        });
        assert.equal(r.statusCode, 404, sourceId);
        assert.equal(body(r).error.code, 'LINK-002');
      }
      assert.equal((await call(svc.api, 'GET', links(a, `/${l.id}/sources/direct/stats`))).statusCode, 401);
    });
  });
});
