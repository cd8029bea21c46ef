import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('short links (public listener) and shortened texts', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const links = (rest = '') => `/v1/accounts/${a.accountId}/links${rest}`;
  const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
  const today = () => new Date().toISOString().slice(0, 10);
  const newContact = async () => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile: `+1201555${String(3000 + seq++).padStart(4, '0')}`, firstName: `F${seq}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0];
  };
  const send = (json: object) =>
    call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, { auth: a.auth, json });

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 100 });
  });
  after(() => svc.close());

  describe('GET /l/:slug', () => {
    it('redirects (302) to the stored URL only, uncached, and counts the click', async () => {
      const l = body(
        await call(svc.api, 'POST', links(), {
          auth: a.auth,
          json: { url: 'https://example.com/landing?x=1' },
        }),
      ).data;
      const res = await call(svc.externals, 'GET', `${pathOf(l.shortUrl)}?next=https://evil.example`);
      assert.equal(res.statusCode, 302);
      assert.equal(res.headers.location, 'https://example.com/landing?x=1');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(body(await call(svc.api, 'GET', links(`/${l.id}`), { auth: a.auth })).data.clicks, 1);
    });

    it('answers 404 for an unknown or malformed slug', async () => {
      for (const path of [
        '/l/AAAAAAAAAA',
        '/l/short',
        '/l/%3Cscript%3E',
        `/l/${'x'.repeat(300)}`,
        '/l/AAAAAAAAAA/abcdef',
      ]) {
        const res = await call(svc.externals, 'GET', path);
        assert.equal(res.statusCode, 404, path);
        assert.equal(res.headers.location, undefined);
      }
    });

    it('counts a click with an unknown source key on the direct source', async () => {
      const l = body(
        await call(svc.api, 'POST', links(), { auth: a.auth, json: { url: 'https://example.com/k' } }),
      ).data;
      for (const suffix of ['/zzzzzz', '/bad!', '?s=nothing']) {
        const res = await call(svc.externals, 'GET', `${pathOf(l.shortUrl)}${suffix}`);
        assert.equal(res.statusCode, 302, suffix);
      }
      const [direct] = body(await call(svc.api, 'GET', links(`/${l.id}/sources`), { auth: a.auth })).data;
      assert.equal(direct.clicks, 3);
    });
  });

  describe('POST …/messages with shortenLinks: true', () => {
    it('replaces URLs with tracked links whose source is the send job; clicks count per source and per day', async () => {
      const c1 = await newContact();
      const c2 = await newContact();
      const res = await send({
        contacts: [{ id: c1.id }, { id: c2.id }],
        template: 'Hi {{{firstName}}}, see https://shop.example/sale?id=7. Or (https://shop.example/faq)',
        shortenLinks: true,
      });
      assert.equal(res.statusCode, 200, res.body);
      const { jobId, messages } = body(res).data;
      assert.equal(messages.length, 2);
      const base = `${svc.config.externalsUrl}/l/`;
      const shortRe = new RegExp(
        `${base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[A-Za-z0-9]{10}/[A-Za-z0-9]{6}`,
        'g',
      );
      const m1 = messages.find((m: { contact: { id: string } }) => m.contact.id === c1.id);
      const shorts = m1.message.match(shortRe) as string[];
      assert.equal(shorts.length, 2, m1.message);
      assert.ok(m1.message.startsWith(`Hi ${c1.firstName}, see ${shorts[0]}. Or (${shorts[1]})`), m1.message);
      assert.ok(!m1.message.includes('shop.example'));
      assert.equal(
        m1.template,
        'Hi {{{firstName}}}, see https://shop.example/sale?id=7. Or (https://shop.example/faq)',
      );

      const list = body(await call(svc.api, 'GET', links('?name=shop.example/sale'), { auth: a.auth })).data;
      assert.equal(list.length, 1);
      const sale = list[0];
      assert.equal(sale.url, 'https://shop.example/sale?id=7');
      const sources = body(await call(svc.api, 'GET', links(`/${sale.id}/sources`), { auth: a.auth })).data;
      assert.deepEqual(
        sources.map((s: { type: string }) => s.type),
        ['direct', 'job'],
      );
      const jobSource = sources[1];
      assert.deepEqual(jobSource.job, { id: jobId });
      assert.equal(jobSource.shortUrl, shorts[0]);

      for (let i = 0; i < 2; i++) {
        const r = await call(svc.externals, 'GET', pathOf(shorts[0]));
        assert.equal(r.statusCode, 302);
        assert.equal(r.headers.location, 'https://shop.example/sale?id=7');
      }
      await call(svc.externals, 'GET', pathOf(sale.shortUrl));
      const stats = body(
        await call(svc.api, 'GET', links(`/${sale.id}/sources/${jobSource.id}/stats`), { auth: a.auth }),
      );
      assert.deepEqual(stats.data, [{ date: `${today()}T00:00:00.000Z`, value: 2 }]);
      const direct = body(
        await call(svc.api, 'GET', links(`/${sale.id}/sources/direct/stats`), { auth: a.auth }),
      );
      assert.deepEqual(direct.data, [{ date: `${today()}T00:00:00.000Z`, value: 1 }]);
      assert.equal(body(await call(svc.api, 'GET', links(`/${sale.id}`), { auth: a.auth })).data.clicks, 3);

      // A second send reuses the link with a source of its own.
      const again = await send({
        contacts: [{ id: c1.id }],
        template: 'Last call https://shop.example/sale?id=7',
        shortenLinks: true,
      });
      assert.equal(again.statusCode, 200, again.body);
      const after = body(await call(svc.api, 'GET', links(`/${sale.id}/sources`), { auth: a.auth })).data;
      assert.equal(after.length, 3);
      assert.equal(after[2].job.id, body(again).data.jobId);
      assert.ok(body(again).data.messages[0].message.includes(after[2].shortUrl));
    });

    it('leaves texts alone without shortenLinks, and leaves personalised URLs alone with it', async () => {
      const c = await newContact();
      const plain = await send({ contacts: [{ id: c.id }], template: 'Go https://plain.example/x' });
      assert.equal(body(plain).data.messages[0].message, 'Go https://plain.example/x');
      const personal = await send({
        contacts: [{ id: c.id }],
        template: 'Yours: https://plain.example/u/{{{id}}}',
        shortenLinks: true,
      });
      assert.equal(body(personal).data.messages[0].message, `Yours: https://plain.example/u/${c.id}`);
      assert.equal(
        body(await call(svc.api, 'GET', links('?name=plain.example'), { auth: a.auth })).data.length,
        0,
      );
    });

    it('creates no link when the send is refused', async () => {
      const res = await send({ contacts: [], template: 'https://refused.example/', shortenLinks: true });
      assert.equal(res.statusCode, 400);
      const none = await send({
        contacts: [{ id: '01937c1e-0000-7000-8000-00000000abcd' }],
        template: 'https://refused.example/',
        shortenLinks: true,
      });
      assert.equal(none.statusCode, 404, none.body);
      assert.equal(
        body(await call(svc.api, 'GET', links('?name=refused.example'), { auth: a.auth })).data.length,
        0,
      );
    });
  });
});
