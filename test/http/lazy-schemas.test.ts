import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApiApp, buildExternalsApp } from '../../src/http/app.ts';
import { lazySchemaController } from '../../src/http/lazy-schemas.ts';
import { startTestService, type TestAccount, type TestService } from '../helpers.ts';

// The service compiles route schemas on first use (a faster start); the tests' apps compile them
// eagerly here (the test service's apps are lazy, as the service's are). Both must answer alike: validation errors, coercion, defaults, removed properties and
// response serialization.
describe('an API app built with lazily compiled schemas', () => {
  let svc: TestService;
  let lazyApp: FastifyInstance;
  let eagerApp: FastifyInstance;
  let a: TestAccount;
  let warmErrors: Error[];
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    const lazy = lazySchemaController();
    lazyApp = await buildApiApp(svc.ctx, { lazySchemas: lazy });
    eagerApp = await buildApiApp(svc.ctx);
    warmErrors = [];
    lazy.warm((err) => warmErrors.push(err));
  });
  after(async () => {
    await lazyApp.close();
    await eagerApp.close();
    await svc.close();
  });

  const both = async (opts: { method: 'GET' | 'POST'; url: string; payload?: Record<string, unknown> }) => {
    const req = { ...opts, headers: a.auth };
    const [eager, lazy] = [await eagerApp.inject(req), await lazyApp.inject(req)];
    return { eager, lazy };
  };
  const strip = (body: string) => body.replace(/"(id|at|created|updated)":"[^"]*"/g, '"$1":"…"');

  it('answers validation failures exactly as the eagerly compiled app does', async () => {
    for (const req of [
      { method: 'POST' as const, url: `/v1/accounts/${a.accountId}/contacts`, payload: { mobile: 12 } },
      { method: 'GET' as const, url: `/v1/accounts/${a.accountId}/contacts?limit=1000` },
      { method: 'GET' as const, url: `/v1/accounts/${a.accountId}/contacts?offset=-1` },
    ]) {
      const { eager, lazy } = await both(req);
      assert.ok(eager.statusCode >= 400 && eager.statusCode < 500, `${req.url}: ${eager.statusCode}`);
      assert.equal(lazy.statusCode, eager.statusCode, req.url);
      assert.equal(lazy.body, eager.body, req.url);
    }
  });

  it('coerces, defaults and serializes alike', async () => {
    const created = await lazyApp.inject({
      method: 'POST',
      url: `/v1/accounts/${a.accountId}/contacts`,
      headers: a.auth,
      payload: { firstName: 'Lazy', mobile: '+12025550188', notAField: 'dropped' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { eager, lazy } = await both({
      method: 'GET',
      url: `/v1/accounts/${a.accountId}/contacts?limit=5`,
    });
    assert.equal(lazy.statusCode, 200);
    assert.equal(strip(lazy.body), strip(eager.body));
    assert.equal(JSON.parse(lazy.body).pagination.limit, 5);
  });

  it('compiles every route schema of both apps up front without an error', async () => {
    // Building an app without lazySchemas compiles each route's validators and serializers when it
    // is ready, and throws on the first that does not compile.
    const externals = await buildExternalsApp(svc.ctx);
    await externals.ready();
    await externals.close();
    await eagerApp.ready();
  });

  it('warms every route schema without an error', async () => {
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(warmErrors, []);
  });
});
