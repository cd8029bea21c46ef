import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const NO_SUCH_ID = '01937c1e-0000-7000-8000-00000000abcd';

describe('paged lists: offset and limit', () => {
  let svc: TestService;
  let a: TestAccount;
  /** Every operation of the OpenAPI document that takes `offset`, with its URL for account a. */
  let paged: { name: string; url: string; hasLimit: boolean; subIds: boolean }[];
  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });
    a = await svc.newAccount();
    const doc = body(await call(svc.api, 'GET', '/openapi.json'));
    paged = [];
    for (const [template, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const query = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
        if (!query.includes('offset')) continue;
        const url = template.replace('{accountId}', a.accountId).replace(/\{[^}]+\}/g, NO_SUCH_ID);
        paged.push({
          name: `${method.toUpperCase()} ${template}`,
          url,
          hasLimit: query.includes('limit'),
          subIds: url.includes(NO_SUCH_ID),
        });
      }
    }
  });
  after(() => svc.close());

  it('finds the paged lists in the OpenAPI document', () => {
    // 26 when this test was written; a sudden drop would mean the enumeration broke.
    assert.ok(paged.length >= 20, `found ${paged.length}`);
  });

  for (const param of ['offset', 'limit'] as const) {
    it(`answers 400 VAL-001 naming ${param} for a huge, negative, exponent or non-numeric value`, async () => {
      const bad =
        param === 'offset'
          ? ['100000000000000000000', '1000000001', '-1', '1e3', 'abc', '', '0x10', '1.5', ' 1']
          : ['100000000000000000000', '101', '0', '-1', '1e1', 'abc', '', '1.5'];
      const failures: string[] = [];
      for (const op of paged) {
        if (param === 'limit' && !op.hasLimit) continue;
        for (const v of bad) {
          const res = await call(svc.api, 'GET', `${op.url}?${param}=${encodeURIComponent(v)}`, {
            auth: a.auth,
          });
          const b = body(res);
          if (res.statusCode !== 400 || b.error?.code !== 'VAL-001' || !b.error.message.includes(param))
            failures.push(`${op.name} ${param}=${v} → ${res.statusCode} ${res.body.slice(0, 120)}`);
        }
      }
      assert.deepEqual(failures, []);
    });
  }

  it('accepts the largest offset and reports it back', async () => {
    const failures: string[] = [];
    for (const op of paged.filter((o) => !o.subIds)) {
      const res = await call(svc.api, 'GET', `${op.url}?offset=1000000000&limit=100`, { auth: a.auth });
      if (res.statusCode !== 200) failures.push(`${op.name} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      else if (body(res).pagination && body(res).pagination.offset !== 1_000_000_000)
        failures.push(`${op.name} reported offset ${body(res).pagination.offset}`);
    }
    assert.deepEqual(failures, []);
  });
});
