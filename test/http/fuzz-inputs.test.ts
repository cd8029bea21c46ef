import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { body, call } from '../helpers.ts';
import { HOSTILE_TEMPLATES } from '../messaging/hostile-templates.ts';
import { serviceWithAccount } from '../support/suite.ts';

// Hostile values for every body property, path id and query parameter the OpenAPI document names.
const JUNK: unknown[] = [
  null,
  '',
  ' ',
  'x'.repeat(5000),
  -1,
  1e308,
  0.5,
  true,
  [],
  [null],
  {},
  { $gt: '' },
  '../../etc/passwd',
  "'; DROP TABLE contacts; --",
  '\u0000',
  '😀',
  '2026-13-45T99:99:99Z',
];
const IDS = ['not-a-uuid', '00000000-0000-0000-0000-000000000000', '%00', 'x'.repeat(300)];

describe('no input makes any endpoint answer 5xx', () => {
  const s = serviceWithAccount({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });

  it('answers every malformed request with a 4xx in the error envelope (or a 2xx)', async () => {
    const doc = body(await call(s.svc.api, 'GET', '/openapi.json'));
    const failures: string[] = [];
    let requests = 0;
    for (const [template, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const props = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {});
        const queries = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
        for (const id of IDS) {
          const url = template
            .replace('{accountId}', s.a.accountId)
            .replace(/\{[^}]+\}/g, encodeURIComponent(id));
          const bodies: unknown[] = props.length
            ? JUNK.flatMap((v) => [Object.fromEntries(props.map((p) => [p, v])), v])
            : [undefined];
          for (const json of bodies) {
            const qs = queries
              .map((q: string) => `${q}=${encodeURIComponent(String(JUNK[requests % JUNK.length]))}`)
              .join('&');
            const res = await call(s.svc.api, method.toUpperCase() as 'GET', qs ? `${url}?${qs}` : url, {
              auth: s.a.auth,
              ...(json === undefined ? {} : { json }),
            });
            requests++;
            if (res.statusCode === 429) failures.push('rate limited: the fuzz did not reach the handlers');
            if (res.statusCode >= 500)
              failures.push(
                `${method.toUpperCase()} ${url} ${JSON.stringify(json)?.slice(0, 80)} → ${res.statusCode} ${res.body.slice(0, 120)}`,
              );
            else if (res.statusCode >= 400 && body(res).success !== false)
              failures.push(`${method} ${url} → ${res.statusCode} without envelope`);
          }
        }
      }
    }
    assert.ok(requests > 1000, `exercised ${requests} requests`);
    assert.deepEqual(failures, []);
  });

  it('answers malformed carrier callbacks on the public listener with a 4xx', async () => {
    const failures: string[] = [];
    for (const v of JUNK) {
      for (const json of [v, { from: v, to: v, text: v }, { from: '+12025550100', to: v, text: 'hi' }]) {
        const res = await call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', { json });
        if (res.statusCode >= 500)
          failures.push(`simulator ${JSON.stringify(json)?.slice(0, 60)} → ${res.statusCode}`);
      }
      for (const path of ['/v1/providers/twilio/inbound', '/v1/providers/twilio/status']) {
        const res = await call(s.svc.externals, 'POST', path, {
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': String(v) },
          payload: new URLSearchParams({
            MessageSid: String(v),
            From: String(v),
            Body: String(v),
          }).toString(),
        });
        if (res.statusCode >= 500) failures.push(`${path} → ${res.statusCode}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});

describe('hostile merge-field templates', () => {
  const s = serviceWithAccount({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });

  it('answers sends and templates made of them with 2xx or 4xx, and lists the stored ones', async () => {
    const failures: string[] = [];
    const check = (what: string, res: Awaited<ReturnType<typeof call>>) => {
      if (res.statusCode >= 500) failures.push(`${what} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      else if (res.statusCode >= 400 && body(res).success !== false)
        failures.push(`${what} without envelope`);
    };
    let stored = 0;
    for (const { name, template } of HOSTILE_TEMPLATES) {
      // Whole (up to 10,003 characters: over the send limit of 10,000 is a 400) and cut to the template limit.
      for (const text of [template, template.slice(0, 1600)]) {
        check(
          `send ${name}`,
          await call(s.svc.api, 'POST', `/v1/accounts/${s.a.accountId}/messages`, {
            auth: s.a.auth,
            json: { contacts: [{ mobile: '+12025550123', firstName: 'Ada' }], template: text },
          }),
        );
        const res = await call(s.svc.api, 'POST', `/v1/accounts/${s.a.accountId}/templates`, {
          auth: s.a.auth,
          json: { name: name.slice(0, 200), template: text },
        });
        check(`template ${name}`, res);
        if (res.statusCode === 201) stored++;
      }
    }
    const list = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}/templates?limit=100`, {
      auth: s.a.auth,
    });
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(stored >= HOSTILE_TEMPLATES.length, `stored ${stored} templates`);
    assert.equal(body(list).pagination.totalCount, stored);
    assert.deepEqual(failures, []);
  });
});
