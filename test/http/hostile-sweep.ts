/**
 * A sweep of hostile values over every operation of /openapi.json: each path parameter, query
 * parameter and body property in turn (the rest of the body an example generated from the schema),
 * as the account's own token. No answer may be a 5xx, and every 4xx carries the error envelope.
 * Then another account's ids (404, never data) and no token (401). Two test files run its halves
 * (`params`: path, query, other account, no token; `bodies`), so each stays within a file's time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

type Schema = Record<string, any>;
interface Op {
  method: string;
  template: string;
  path: string[];
  query: string[];
  body?: Schema;
}

/** A value spelled raw in the JSON text (JSON.stringify cannot write them). */
class Raw {
  constructor(readonly text: string) {}
}

const HOSTILE: [string, unknown][] = [
  ['huge number', 1e20],
  ['huge integer text', '100000000000000000000'],
  ['negative', -1],
  ['-0', new Raw('-0')],
  ['1e309', new Raw('1e309')],
  ['fraction', 0.5],
  ['empty', ''],
  ['blanks', '   '],
  ['100k characters', 'x'.repeat(100_000)],
  ['RTL override', '\u202Eevil\u202C'],
  ['NUL', 'a\u0000b'],
  ['lone surrogate', '\ud800'],
  ['array', ['x', 1]],
  ['object', { a: 1 }],
  ['null', null],
  ['nested', { a: { b: { c: { d: [{ e: {} }] } } } }],
  ['SQL', "'; drop table contacts; --"],
  ['braces', `{{{${' '.repeat(200)}`],
  ['NaN text', 'NaN'],
  ['1e309 text', '1e309'],
  ['boolean', true],
  ['nil uuid', '00000000-0000-0000-0000-000000000000'],
];
const HOSTILE_TEXT = [
  '',
  ' ',
  'not-a-uuid',
  '-1',
  '100000000000000000000',
  '1e309',
  'NaN',
  "'; drop table contacts; --",
  '\u202Eevil',
  '{{{   ',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(100_000),
];

/** Fewer values one level down, to keep the sweep's time in bounds. */
const NESTED = HOSTILE.filter(([label]) =>
  ['huge number', '1e309', 'empty', '100k characters', 'NUL', 'object', 'null', 'braces'].includes(label),
);

/** The object or array form of a schema that allows several (anyOf/oneOf), else the schema. */
function shape(s: Schema | undefined): Schema | undefined {
  const alt = s?.anyOf ?? s?.oneOf;
  if (!alt) return s;
  return alt.find((x: Schema) => x.type === 'object' || x.type === 'array') ?? alt[0];
}

/** Plausible strings by property name, so that a request gets past the obvious checks. */
const HINTS: [RegExp, string][] = [
  [/mobile|phone|^number$|^from$|^to$/i, '+12025550123'],
  [/email/i, 'ada@example.com'],
  // A loopback port that refuses: a URL the sweep gives (a webhook, a CRM's address) is never a
  // host off this machine.
  [/url/i, 'http://127.0.0.1:9/'],
  [/timezone/i, 'UTC'],
  [/template|text|message|body/i, 'Hi {{{firstName}}}'],
  [/cron/i, '0 9 * * *'],
  [/^(start|end)$/i, '09:00'],
];

/**
 * A value that satisfies the schema, as far as its declared shape goes: with `full`, every
 * property (not only the required ones), strings guessed from the property's name.
 */
function example(s: Schema | undefined, depth = 0, full = false, name = ''): unknown {
  if (!s || depth > 6) return undefined;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const alt = s.anyOf ?? s.oneOf;
  if (alt) return example(alt.find((x: Schema) => x.type !== 'null') ?? alt[0], depth + 1, full, name);
  switch (s.type) {
    case 'string':
      if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      if (s.format === 'date') return new Date().toISOString().slice(0, 10);
      if (s.format === 'uri' || s.format === 'url') return 'http://127.0.0.1:9/';
      if (s.format === 'uuid') return '00000000-0000-0000-0000-000000000000';
      if (full) {
        const hint = HINTS.find(([re]) => re.test(name))?.[1];
        if (hint && hint.length <= (s.maxLength ?? Infinity) && hint.length >= (s.minLength ?? 0))
          return hint;
      }
      return 'x'.repeat(Math.max(1, s.minLength ?? 1));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: Math.max(s.minItems ?? 0, full ? 1 : 0) }, () =>
        example(s.items, depth + 1, full, name),
      );
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const k of full ? Object.keys(s.properties ?? {}) : (s.required ?? []))
        out[k] = example(s.properties?.[k], depth + 1, full, k);
      return out;
    }
  }
  return undefined;
}

function payload(json: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(json, (_k, v) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `__RAW_${raws.length - 1}__`;
    }
    return v;
  });
  return text.replace(/"__RAW_(\d+)__"/g, (_m, i) => raws[Number(i)]);
}

const BACKSTOP = 'A value in the request is not valid.';

/** Defines the sweep's tests for one half. */
export function defineSweep(part: 'params' | 'bodies') {
  describe(`a sweep of hostile values over every operation: ${part}`, () => {
    let svc: TestService;
    let a: TestAccount;
    let b: TestAccount;
    let ops: Op[];
    const failures: string[] = [];
    /** Requests refused by PostgreSQL rather than by a schema or a check (the error handler's backstop). */
    const backstopped = new Set<string>();

    const url = (op: Op, account: string, params: Record<string, string>) =>
      op.template
        .replace('{accountId}', account)
        .replace(/\{([^}]+)\}/g, (_m, name) =>
          encodeURIComponent(params[name] ?? '00000000-0000-0000-0000-000000000000'),
        );

    async function send(op: Op, target: string, json: unknown, who: TestAccount | undefined, label: string) {
      const res = await call(svc.api, op.method as 'GET', target, {
        ...(who ? { auth: who.auth } : {}),
        jsonText: json === undefined ? undefined : payload(json),
      });
      const where = `${op.method} ${op.template} ${label}`;
      if (res.statusCode === 400 && res.body.includes(BACKSTOP))
        backstopped.add(`${op.method} ${op.template} ${label}`);
      if (res.statusCode >= 500) failures.push(`${where} → ${res.statusCode} ${res.body.slice(0, 160)}`);
      else if (res.statusCode === 429) failures.push(`${where} → 429: the sweep did not reach the handler`);
      else if (res.statusCode >= 400) {
        let ok = false;
        try {
          const e = body(res);
          ok =
            e.success === false && typeof e.error?.code === 'string' && typeof e.error?.message === 'string';
        } catch {}
        if (!ok)
          failures.push(`${where} → ${res.statusCode} without the error envelope: ${res.body.slice(0, 80)}`);
      }
      return res;
    }

    /**
     * The body the hostile values are put into: every property filled in when the service takes that
     * (so a value reaches the code past the first checks), else only the required ones.
     */
    async function baseBody(op: Op): Promise<Record<string, unknown>> {
      const full = example(op.body, 0, true) as Record<string, unknown>;
      const res = await call(svc.api, op.method as 'GET', url(op, a.accountId, {}), {
        auth: a.auth,
        jsonText: payload(full),
      });
      return res.statusCode < 300 ? full : (example(op.body) as Record<string, unknown>);
    }

    before(async () => {
      svc = await startTestService({ rateLimitPerMinute: 100_000_000, redisUrl: undefined });
      a = await svc.newAccount({ balance: 1000 });
      b = await svc.newAccount({ balance: 1000 });
      const doc = body(await call(svc.api, 'GET', '/openapi.json'));
      ops = [];
      for (const [template, methods] of Object.entries<Record<string, any>>(doc.paths)) {
        if (!template.startsWith('/v1/accounts/{accountId}')) continue;
        for (const [method, op] of Object.entries<any>(methods)) {
          const params = op.parameters ?? [];
          ops.push({
            method: method.toUpperCase(),
            template,
            path: params
              .filter((p: any) => p.in === 'path' && p.name !== 'accountId')
              .map((p: any) => p.name),
            query: params.filter((p: any) => p.in === 'query').map((p: any) => p.name),
            body: op.requestBody?.content?.['application/json']?.schema,
          });
        }
      }
    });
    after(() => svc.close());

    it('answers hostile path, query and body values with a 4xx in the envelope (or a 2xx), never a 5xx', async (t) => {
      failures.length = 0;
      let requests = 0;
      for (const op of ops) {
        const base = op.body ? await baseBody(op) : undefined;
        if (part === 'params') {
          for (const name of op.path)
            for (const v of HOSTILE_TEXT) {
              await send(
                op,
                url(op, a.accountId, { [name]: v }),
                base,
                a,
                `path ${name}=${JSON.stringify(v.slice(0, 20))}`,
              );
              requests++;
            }
          for (const name of op.query)
            for (const v of HOSTILE_TEXT) {
              await send(
                op,
                `${url(op, a.accountId, {})}?${name}=${encodeURIComponent(v)}`,
                base,
                a,
                `query ${name}=${JSON.stringify(v.slice(0, 20))}`,
              );
              requests++;
            }
        }
        if (part === 'params' || !op.body) continue;
        for (const [prop, schema] of Object.entries<Schema>(op.body.properties ?? {})) {
          for (const [label, v] of HOSTILE) {
            await send(op, url(op, a.accountId, {}), { ...base, [prop]: v }, a, `body ${prop}: ${label}`);
            requests++;
          }
          // One level down: an item of an array, a property of an object (or of an array's object item).
          const inner = shape(schema);
          const item = inner?.type === 'array' ? shape(inner.items) : undefined;
          for (const [label, v] of NESTED) {
            if (inner?.type === 'array') {
              await send(
                op,
                url(op, a.accountId, {}),
                { ...base, [prop]: [v] },
                a,
                `body ${prop}[0]: ${label}`,
              );
              requests++;
            }
            const obj = item?.type === 'object' ? item : inner?.type === 'object' ? inner : undefined;
            for (const sub of Object.keys(obj?.properties ?? {})) {
              const value = { ...(example(obj) as object), [sub]: v };
              await send(
                op,
                url(op, a.accountId, {}),
                { ...base, [prop]: obj === item ? [value] : value },
                a,
                `body ${prop}.${sub}: ${label}`,
              );
              requests++;
            }
          }
        }
        // The whole body hostile, too.
        for (const [label, v] of HOSTILE) {
          await send(op, url(op, a.accountId, {}), v, a, `body: ${label}`);
          requests++;
        }
      }
      // Not failures (the answer is a 400), but values that reached a query: worth a check of their own.
      for (const b of backstopped) t.diagnostic(`refused by the database, not a check: ${b}`);
      assert.ok(requests > 1000, `only ${requests} requests`);
      assert.deepEqual(failures, []);
    });

    if (part === 'bodies') return;

    it("answers another account's ids with 404, never its data", async () => {
      failures.length = 0;
      // Give b one of each thing that is simple to make, then read every id its lists show.
      const bUrl = (p: string) => `/v1/accounts/${b.accountId}${p}`;
      const contact = body(
        await call(svc.api, 'POST', bUrl('/contacts'), {
          auth: b.auth,
          json: { firstName: 'B', mobile: '+12025550111' },
        }),
      ).data[0];
      await call(svc.api, 'POST', bUrl('/lists'), { auth: b.auth, json: { name: 'B list' } });
      await call(svc.api, 'POST', bUrl('/templates'), { auth: b.auth, json: { name: 'B', template: 'Hi' } });
      await call(svc.api, 'POST', bUrl('/webhooks'), {
        auth: b.auth,
        json: { url: 'http://127.0.0.1:9/hook', eventTypes: ['contact-created'] },
      });
      await call(svc.api, 'POST', bUrl('/messages'), {
        auth: b.auth,
        json: { contacts: [{ id: contact?.id }], template: 'Hi' },
      });
      await call(svc.api, 'POST', bUrl('/links'), {
        auth: b.auth,
        json: { name: 'B', url: 'https://example.com/' },
      });
      for (const op of ops.filter((o) => o.method === 'POST' && o.path.length === 0))
        await call(svc.api, 'POST', bUrl(op.template.replace('/v1/accounts/{accountId}', '')), {
          auth: b.auth,
          json: example(op.body),
        });
      const ids: Record<string, string> = {};
      // Catalogs every account shares (ready-made workflows): their ids are nobody's own data.
      const shared = (template: string) => template.startsWith('/v1/accounts/{accountId}/workflowtemplates');
      for (const op of ops.filter((o) => o.method === 'GET' && o.path.length === 0 && !shared(o.template))) {
        const list = ops.find((o) => o.template.startsWith(`${op.template}/{`) && o.path.length === 1);
        if (!list) continue;
        const res = await call(svc.api, 'GET', bUrl(op.template.replace('/v1/accounts/{accountId}', '')), {
          auth: b.auth,
        });
        const first = body(res).data?.[0];
        if (first?.id) ids[list.path[0]] = first.id;
      }
      let checked = 0;
      for (const op of ops) {
        if (op.path.length === 0 || shared(op.template) || !op.path.every((p) => ids[p])) continue;
        const res = await send(
          op,
          url(op, a.accountId, ids),
          op.body ? example(op.body) : undefined,
          a,
          'with b ids',
        );
        checked++;
        if (res.statusCode !== 404 && !(op.method !== 'GET' && res.statusCode === 400))
          failures.push(
            `${op.method} ${op.template} with another account's ids → ${res.statusCode} ${res.body.slice(0, 120)}`,
          );
        if (Object.values(ids).some((id) => res.statusCode < 300 && res.body.includes(id)))
          failures.push(`${op.method} ${op.template} answered another account's data`);
      }
      assert.ok(
        checked >= 30,
        `only ${checked} operations had ids of the other account: ${Object.keys(ids).join(', ')}`,
      );
      assert.deepEqual(failures, []);
    });

    it('answers every operation without a token with 401', async () => {
      const wrong: string[] = [];
      for (const op of ops) {
        const res = await call(svc.api, op.method as 'GET', url(op, a.accountId, {}));
        if (res.statusCode !== 401 || body(res).error?.code !== 'AUTH-001')
          wrong.push(`${op.method} ${op.template} → ${res.statusCode}`);
      }
      assert.deepEqual(wrong, []);
    });
  });
}
