import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRoute } from '../../src/domain/routes/routes.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

describe('routes API', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const path = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/routes${rest}`;
  const post = (acc: TestAccount, json: unknown, auth = acc.auth) =>
    call(svc.api, 'POST', path(acc), { auth, json });

  before(async () => {
    // One SMPP instance of PROVIDERS (nothing connects: no workers run here).
    svc = await startTestService(
      {},
      {
        env: {
          PROVIDERS: JSON.stringify([
            { name: 'carrier-b', kind: 'smpp', url: 'smpp://127.0.0.1:9', systemId: 'b', password: 'pw' },
          ]),
        },
      },
    );
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  it('creates, reads, lists, replaces and deletes a route', async () => {
    const res = await post(a, {
      prefix: '+4477',
      providers: [
        { provider: 'twilio', priority: 2 },
        { provider: 'smpp', priority: 1, weight: 70 },
        { provider: 'simulator', priority: 1, weight: 30 },
      ],
      description: 'UK mobiles',
    });
    assert.equal(res.statusCode, 201, res.body);
    const r = body(res).data;
    assert.equal(r.type, 'route');
    assert.equal(r.prefix, '4477');
    assert.equal(r.country, undefined);
    assert.equal(r.description, 'UK mobiles');
    assert.deepEqual(
      r.providers.map((p: { provider: string; priority: number; weight: number }) => [
        p.provider,
        p.priority,
        p.weight,
      ]),
      [
        ['smpp', 1, 70],
        ['simulator', 1, 30],
        ['twilio', 2, 1],
      ],
    );
    assert.ok(r.created.at && r.updated.at);

    const got = await call(svc.api, 'GET', path(a, `/${r.id}`), { auth: a.auth });
    assert.equal(got.statusCode, 200);
    assert.deepEqual(body(got).data, r);

    const list = await call(svc.api, 'GET', path(a), { auth: a.auth });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      body(list).data.map((x: { id: string }) => x.id),
      [r.id],
    );
    assert.equal(body(list).pagination.totalCount, 1);

    const put = await call(svc.api, 'PUT', path(a, `/${r.id}`), {
      auth: a.auth,
      json: { country: 'gb', providers: [{ provider: 'simulator' }] },
    });
    assert.equal(put.statusCode, 200, put.body);
    const replaced = body(put).data;
    assert.equal(replaced.country, 'GB');
    assert.equal(replaced.prefix, undefined);
    assert.equal(replaced.description, undefined);
    assert.deepEqual(replaced.providers, [{ provider: 'simulator', priority: 1, weight: 1 }]);

    const del = await call(svc.api, 'DELETE', path(a, `/${r.id}`), { auth: a.auth });
    assert.equal(del.statusCode, 204);
    const gone = await call(svc.api, 'GET', path(a, `/${r.id}`), { auth: a.auth });
    assert.equal(gone.statusCode, 404);
    assert.equal(body(gone).error.code, 'ROUTE-001');
  });

  it('keeps one route per destination: 409 ROUTE-002 on create and on replace', async () => {
    const first = await post(a, { country: 'FR', providers: [{ provider: 'smpp' }] });
    assert.equal(first.statusCode, 201, first.body);
    const again = await post(a, { country: 'fr', providers: [{ provider: 'twilio' }] });
    assert.equal(again.statusCode, 409);
    assert.equal(body(again).error.code, 'ROUTE-002');
    const other = await post(a, { country: 'DE', providers: [{ provider: 'smpp' }] });
    assert.equal(other.statusCode, 201);
    const clash = await call(svc.api, 'PUT', path(a, `/${body(other).data.id}`), {
      auth: a.auth,
      json: { country: 'FR', providers: [{ provider: 'smpp' }] },
    });
    assert.equal(clash.statusCode, 409);
    assert.equal(body(clash).error.code, 'ROUTE-002');
    // The same destination in another account is that account's own route.
    const inB = await post(b, { country: 'FR', providers: [{ provider: 'smpp' }] });
    assert.equal(inB.statusCode, 201);
    // One catch-all per account.
    assert.equal((await post(a, { providers: [{ provider: 'smpp' }] })).statusCode, 201);
    assert.equal(body(await post(a, { providers: [{ provider: 'twilio' }] })).error.code, 'ROUTE-002');
  });

  it('answers 401 without a token, 403 without the scope and 403 AUTH-003 for another account', async () => {
    const json = { prefix: '1', providers: [{ provider: 'smpp' }] };
    assert.equal((await call(svc.api, 'POST', path(a), { json })).statusCode, 401);
    assert.equal((await call(svc.api, 'GET', path(a))).statusCode, 401);
    const reader = await svc.newAccount({ scopes: ['routes:read'] });
    const denied = await post(reader, json);
    assert.equal(denied.statusCode, 403);
    assert.equal(body(denied).error.code, 'AUTH-004');
    const none = await svc.newAccount({ scopes: ['messages:read'] });
    const list = await call(svc.api, 'GET', path(none), { auth: none.auth });
    assert.equal(list.statusCode, 403);
    assert.equal(body(list).error.code, 'AUTH-004');
    const other = await post(b, json, a.auth);
    assert.equal(other.statusCode, 403);
    assert.equal(body(other).error.code, 'AUTH-003');
    const otherList = await call(svc.api, 'GET', path(b), { auth: a.auth });
    assert.equal(otherList.statusCode, 403);
  });

  it("answers 404 ROUTE-001 for another account's route, an unknown id and a malformed one", async () => {
    const theirs = body(await post(b, { prefix: '33', providers: [{ provider: 'twilio' }] })).data;
    for (const id of [theirs.id, NOT_THERE, 'abc', "1' OR '1'='1"]) {
      const url = path(a, `/${encodeURIComponent(id)}`);
      for (const [method, json] of [
        ['GET', undefined],
        ['PUT', { prefix: '33', providers: [{ provider: 'smpp' }] }],
        ['DELETE', undefined],
      ] as const) {
        const res = await call(svc.api, method, url, { auth: a.auth, json });
        assert.equal(res.statusCode, 404, `${method} ${id}: ${res.body}`);
        assert.equal(body(res).error.code, 'ROUTE-001');
      }
    }
    // Still there, unchanged, for its owner.
    const still = await call(svc.api, 'GET', path(b, `/${theirs.id}`), { auth: b.auth });
    assert.equal(still.statusCode, 200);
    assert.deepEqual(body(still).data.providers, [{ provider: 'twilio', priority: 1, weight: 1 }]);
  });

  it('names provider instances: one of PROVIDERS, and a well-formed one not configured here (passed over)', async () => {
    const res = await post(a, {
      prefix: '4915',
      providers: [
        { provider: 'carrier-b', priority: 1 },
        { provider: 'carrier_c-2', priority: 2 },
        { provider: 'smpp', priority: 3 },
      ],
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      body(res).data.providers.map((p: { provider: string }) => p.provider),
      ['carrier-b', 'carrier_c-2', 'smpp'],
    );
    const got = await call(svc.api, 'GET', path(a, `/${body(res).data.id}`), { auth: a.auth });
    assert.equal(body(got).data.providers[0].provider, 'carrier-b');
    // The same rule in the domain (the CLI's way in): a malformed name is ROUTE-003.
    await assert.rejects(
      createRoute(
        svc.db,
        a.accountId,
        { prefix: '4916', providers: [{ provider: 'Carrier B' }] },
        { id: 't' },
      ),
      (err: { code?: string }) => err.code === 'ROUTE-003',
    );
  });

  it('rejects invalid routes with 400 naming what is wrong', async () => {
    const cases: [unknown, string][] = [
      [{}, 'VAL-001'],
      [{ providers: [] }, 'VAL-001'],
      [{ prefix: '44', providers: [{ provider: 'Carrier X' }] }, 'VAL-001'],
      [{ prefix: '44', providers: [{ provider: 'x'.repeat(33) }] }, 'VAL-001'],
      [{ prefix: '44', providers: [{ provider: '-carrier' }] }, 'VAL-001'],
      [{ prefix: '44a', providers: [{ provider: 'smpp' }] }, 'VAL-001'],
      [{ prefix: '', providers: [{ provider: 'smpp' }] }, 'VAL-001'],
      [{ prefix: '1234567890123456', providers: [{ provider: 'smpp' }] }, 'VAL-001'],
      [{ country: 'GBR', providers: [{ provider: 'smpp' }] }, 'VAL-001'],
      [{ prefix: '44', providers: [{ provider: 'smpp', priority: 0 }] }, 'VAL-001'],
      [{ prefix: '44', providers: [{ provider: 'smpp', weight: -1 }] }, 'VAL-001'],
      [{ prefix: '44', providers: [{ provider: 'smpp', weight: 1.5 }] }, 'VAL-001'],
      [{ prefix: '44', providers: 'smpp' }, 'VAL-001'],
      [{ prefix: '44', providers: [{ provider: 'smpp' }], description: 'x'.repeat(201) }, 'VAL-001'],
      [{ prefix: '44', country: 'GB', providers: [{ provider: 'smpp' }] }, 'ROUTE-003'],
      [{ prefix: '44', providers: [{ provider: 'smpp' }, { provider: 'smpp', priority: 2 }] }, 'ROUTE-003'],
    ];
    for (const [json, code] of cases) {
      const res = await post(a, json);
      assert.equal(res.statusCode, 400, `${JSON.stringify(json)}: ${res.body}`);
      assert.equal(body(res).error.code, code, JSON.stringify(json));
    }
    const page = await call(svc.api, 'GET', path(a, '?limit=0'), { auth: a.auth });
    assert.equal(page.statusCode, 400);
  });

  it('takes hostile values as data or refuses them, never as SQL or markup', async () => {
    const hostile = [
      "'; DROP TABLE routes; --",
      '<script>alert(1)</script>',
      '\u202e\u0000 nul and bidi',
      '💥'.repeat(50),
    ];
    for (const text of hostile) {
      const res = await post(a, { prefix: text, providers: [{ provider: 'smpp' }] });
      assert.equal(res.statusCode, 400, res.body);
      const res2 = await post(a, { country: text, providers: [{ provider: text }] });
      assert.equal(res2.statusCode, 400, res2.body);
    }
    // As a description it is only text: stored and answered as given (NUL refused).
    const ok = await post(a, {
      prefix: '999',
      providers: [{ provider: 'smpp' }],
      description: "'; DROP TABLE routes; -- <script>",
    });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(body(ok).data.description, "'; DROP TABLE routes; -- <script>");
    const nul = await post(a, { prefix: '998', providers: [{ provider: 'smpp' }], description: 'a\u0000b' });
    assert.equal(nul.statusCode, 400);
    const bad = await call(svc.api, 'POST', path(a), {
      auth: a.auth,
      jsonText: '{"prefix": "1", "providers": [',
    });
    assert.equal(bad.statusCode, 400);
  });
});
