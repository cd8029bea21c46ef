import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_ATTRIBUTE_BYTES,
  MAX_ATTRIBUTE_KEY_LENGTH,
  MAX_ATTRIBUTE_VALUE_LENGTH,
  MAX_ATTRIBUTES,
} from '../../src/schemas/limits.ts';
import { body, call } from '../helpers.ts';
import { serviceWithAccount } from '../support/suite.ts';

/** JSON text of `depth` nested objects (or arrays), `{"a":{"a":…}}`. */
function nested(depth: number, array = false): string {
  return array ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const attrs = (n: number, value = 'v') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

describe('JSON bodies nested too deep', () => {
  const s = serviceWithAccount({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });

  const contacts = () => `/v1/accounts/${s.a.accountId}/contacts`;

  it('refuses attributes nested 10,000 deep with 400 on create, update and send', async () => {
    const created = await call(s.svc.api, 'POST', contacts(), {
      auth: s.a.auth,
      json: { mobile: '+12025550111' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = body(created).data[0].id;
    for (const [method, url, payload] of [
      ['POST', contacts(), `{"mobile":"+12025550112","attributes":{"deep":${nested(10_000)}}}`],
      ['PUT', `${contacts()}/${id}`, `{"attributes":{"deep":${nested(10_000, true)}}}`],
      ['POST', `/v1/accounts/${s.a.accountId}/messages`, `{"template":"hi","filters":${nested(10_000)}}`],
    ] as const) {
      const res = await call(s.svc.api, method, url, {
        auth: s.a.auth,
        jsonText: payload,
      });
      assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body.slice(0, 200)}`);
      assert.equal(body(res).error.code, 'VAL-001');
      assert.match(body(res).error.message, /nests deeper than 32/);
    }
  });

  it('refuses deep JSON on the public listener with 400', async () => {
    const res = await call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', {
      jsonText: `{"from":"+12025550100","to":"+12025550101","text":${nested(5_000, true)}}`,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(body(res).error.code, 'VAL-001');
  });

  it('accepts 32 levels, and brackets inside strings count for nothing', async () => {
    // body → attributes → 30 levels = 32.
    const res = await call(s.svc.api, 'POST', contacts(), {
      auth: s.a.auth,
      jsonText: `{"mobile":"+12025550113","attributes":{"deep":${nested(30)},"text":"${'[{'.repeat(2000)}\\"]"}}`,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(body(res).data[0].attributes.text, `${'[{'.repeat(2000)}"]`);
    const deeper = await call(s.svc.api, 'POST', contacts(), {
      auth: s.a.auth,
      jsonText: `{"mobile":"+12025550114","attributes":{"deep":${nested(31)}}}`,
    });
    assert.equal(deeper.statusCode, 400, deeper.body);
  });
});

describe('limits of contact attributes in JSON writes', () => {
  const s = serviceWithAccount({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });

  const contacts = () => `/v1/accounts/${s.a.accountId}/contacts`;
  let n = 0;
  const mobile = () => `+1202555${String(1000 + n++).padStart(4, '0')}`;
  const create = (attributes: Record<string, unknown>, query = '', number = mobile()) =>
    call(s.svc.api, 'POST', `${contacts()}${query}`, {
      auth: s.a.auth,
      json: { mobile: number, attributes },
    });

  function refused(res: Awaited<ReturnType<typeof call>>, pattern: RegExp) {
    assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    assert.equal(body(res).error.code, 'CONT-005');
    assert.match(body(res).error.message, pattern);
  }

  it('refuses a contact with 60,000 attributes', async () => {
    refused(await create(attrs(60_000)), /at most 100 attributes/);
  });

  it('refuses a name, a value or a total over its limit, and accepts each at its limit', async () => {
    refused(await create({ ['k'.repeat(MAX_ATTRIBUTE_KEY_LENGTH + 1)]: 'v' }), /name .* longer than 128/);
    refused(await create({ long: 'x'.repeat(MAX_ATTRIBUTE_VALUE_LENGTH + 1) }), /"long" is longer than 5000/);
    refused(await create({ obj: { list: Array(3000).fill(1) } }), /"obj" is longer/);
    const big = attrs(10, 'é'.repeat(2000)); // 10 × 4,000 bytes
    refused(await create(big), /at most 32768 bytes/);
    refused(await create(attrs(MAX_ATTRIBUTES + 1)), /at most 100 attributes/);

    const atLimits = {
      ...attrs(MAX_ATTRIBUTES - 2),
      ['k'.repeat(MAX_ATTRIBUTE_KEY_LENGTH)]: 'v',
      long: 'x'.repeat(MAX_ATTRIBUTE_VALUE_LENGTH),
    };
    const ok = await create(atLimits);
    assert.equal(ok.statusCode, 201, ok.body.slice(0, 300));
    assert.equal(Object.keys(body(ok).data[0].attributes).length, MAX_ATTRIBUTES);
    assert.ok(MAX_ATTRIBUTE_BYTES > MAX_ATTRIBUTE_VALUE_LENGTH);
  });

  it('refuses an update or a merge that would grow a contact past the limits, and changes nothing', async () => {
    const number = mobile();
    const bulky = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`b${i}`, 'x'.repeat(5000)]));
    const created = await create({ ...attrs(60, 'a'), ...bulky }, '', number);
    assert.equal(created.statusCode, 201, created.body);
    const id = body(created).data[0].id;
    const more = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`m${i}`, 'b']));
    refused(
      await call(s.svc.api, 'PUT', `${contacts()}/${id}`, { auth: s.a.auth, json: { attributes: more } }),
      /would have 124 attributes/,
    );
    refused(await create(more, '?mergeStrategy=append', number), /would have 124 attributes/);
    const heavy = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`h${i}`, 'x'.repeat(5000)]));
    refused(
      await call(s.svc.api, 'PUT', `${contacts()}/${id}`, { auth: s.a.auth, json: { attributes: heavy } }),
      /bytes after the merge/,
    );
    const after = body(await call(s.svc.api, 'GET', `${contacts()}/${id}`, { auth: s.a.auth })).data;
    assert.equal(Object.keys(after.attributes).length, 64);
    // Replacing values or removing keys (null) stays possible at the limit.
    const replaced = await call(s.svc.api, 'PUT', `${contacts()}/${id}`, {
      auth: s.a.auth,
      json: { attributes: { ...attrs(60, 'c'), k0: null } },
    });
    assert.equal(replaced.statusCode, 200, replaced.body.slice(0, 300));
    assert.equal(Object.keys(body(replaced).data.attributes).length, 63);
  });
});

describe('limits of contact attributes in hosted form submissions', () => {
  const s = serviceWithAccount(
    { rateLimitPerMinute: 1_000_000, redisUrl: undefined },
    { account: { balance: 100 } },
  );

  it('answers answers too long in total as an invalid submission, keeping nothing', async () => {
    const fields = Array.from({ length: 8 }, (_, i) => ({ name: `t${i}`, type: 'textarea' }));
    const res = await call(s.svc.api, 'POST', `/v1/accounts/${s.a.accountId}/forms`, {
      auth: s.a.auth,
      json: { name: 'Long answers', active: true, fields },
    });
    assert.equal(res.statusCode, 201, res.body);
    const formId = body(res).data.id;
    const answers = Object.fromEntries(fields.map((f) => [f.name, 'x'.repeat(4500)]));
    const submit = (values: Record<string, string>) =>
      call(s.svc.externals, 'POST', `/f/${formId}`, { json: { mobile: '+12025550160', ...values } });
    const tooLong = await submit(answers);
    assert.equal(tooLong.statusCode, 400, tooLong.body.slice(0, 300));
    assert.equal(body(tooLong).error.code, 'FORM-004');
    assert.match(body(tooLong).error.details.fields.t0, /too long/);
    const { rows } = await s.svc.db.query('SELECT count(*)::int AS n FROM contacts WHERE account_id = $1', [
      s.a.accountId,
    ]);
    assert.equal(rows[0].n, 0);
    const fine = await submit({ t0: 'x'.repeat(4500), t1: 'y'.repeat(4500) });
    assert.equal(fine.statusCode, 200, fine.body.slice(0, 300));
  });
});
