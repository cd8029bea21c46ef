import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PATH_ID_NOT_FOUND } from '../../src/schemas/common.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const NIL = '00000000-0000-0000-0000-000000000000';
const MALFORMED = [
  'not-a-uuid',
  '1',
  '-1',
  '100000000000000000000',
  '1e309',
  'x'.repeat(300),
  `${NIL.slice(0, -1)}g`,
  `urn:uuid:${NIL}`,
  `{${NIL}}`,
  "'; drop table contacts; --",
  ' ',
  '😀',
];

describe('malformed ids in the path', () => {
  let svc: TestService;
  let a: TestAccount;
  let ops: { method: string; template: string; ids: string[] }[];
  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });
    a = await svc.newAccount();
    const doc = body(await call(svc.api, 'GET', '/openapi.json'));
    ops = [];
    for (const [template, methods] of Object.entries<Record<string, any>>(doc.paths))
      for (const [method, op] of Object.entries<any>(methods)) {
        const ids = (op.parameters ?? [])
          .filter((p: any) => p.in === 'path' && p.schema?.format === 'uuid')
          .map((p: any) => p.name);
        if (ids.length) ops.push({ method: method.toUpperCase(), template, ids });
      }
  });
  after(() => svc.close());

  it('declares every record id of a path as a UUID in the OpenAPI document', () => {
    const declared = new Set(ops.flatMap((o) => o.ids));
    assert.deepEqual([...declared].sort(), Object.keys(PATH_ID_NOT_FOUND).sort());
    assert.ok(ops.length >= 50, `${ops.length} operations`);
  });

  it("answers a malformed path id with the resource's 404, before anything else is read", async () => {
    const wrong: string[] = [];
    for (const op of ops)
      for (const name of op.ids)
        for (const v of MALFORMED) {
          const url = op.template
            .replace('{accountId}', a.accountId)
            .replace(/\{([^}]+)\}/g, (_m, p) => (p === name ? encodeURIComponent(v) : NIL));
          // A body that would be refused on its own: the id is judged first.
          const res = await call(svc.api, op.method as 'GET', url, {
            auth: a.auth,
            ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { json: { junk: [1] } }),
          });
          const expected = PATH_ID_NOT_FOUND[name as keyof typeof PATH_ID_NOT_FOUND];
          if (res.statusCode !== 404 || body(res).error?.code !== expected)
            wrong.push(
              `${op.method} ${op.template} ${name}=${v.slice(0, 20)} → ${res.statusCode} ${res.body.slice(0, 100)}`,
            );
        }
    assert.deepEqual(wrong, []);
  });

  it('still answers an unknown well-formed id with the same 404', async () => {
    const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts/${NIL}`, { auth: a.auth });
    assert.equal(res.statusCode, 404);
    assert.equal(body(res).error.code, 'CONT-002');
  });
});
