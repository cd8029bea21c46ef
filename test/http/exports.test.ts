import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/** The rows of a CSV answer (its BOM dropped), header first. */
function rows(text: string): string[][] {
  assert.ok(text.startsWith('\uFEFF'), 'UTF-8 with a BOM');
  return parse(text.slice(1), { relax_column_count: false }) as string[][];
}

/** The rows as objects by the header's names. */
function records(text: string): Record<string, string>[] {
  const [header, ...data] = rows(text);
  return data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

describe('CSV exports: GET …/contacts/export and …/messages/export', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const get = (acc: TestAccount, path: string, auth = acc.auth) =>
    call(svc.api, 'GET', `${base(acc)}${path}`, { auth });

  before(async () => {
    svc = await startTestService({ simulatorDeliveryDelayMs: 0, rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 100 });
    b = await svc.newAccount({ balance: 100 });
  });
  after(() => svc.close());

  it('exports the contacts a search matches, as the list finds them, with formulas made inert', async () => {
    const hostile = [
      ['=HYPERLINK("http://evil.example","x")', 'Plain', '+12025550101'],
      ['@SUM(A1:A9)', '-2+3', '+12025550102'],
      ['+cmd|/c calc', 'Tab', '+12025550103'],
      ['Zoë', 'Müller, "the" boss', '+12025550104'],
    ];
    for (const [firstName, lastName, mobile] of hostile) {
      const res = await call(svc.api, 'POST', `${base(a)}/contacts`, {
        auth: a.auth,
        json: {
          firstName,
          lastName,
          mobile,
          tags: [{ tag: 'vip' }, { tag: 'q4' }],
          attributes: { plan: '=1+1', size: 3 },
        },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    // Another account's contact that the search would match: never in a's export.
    await call(svc.api, 'POST', `${base(b)}/contacts`, {
      auth: b.auth,
      json: { firstName: 'Zoë', mobile: '+12025550199' },
    });
    const res = await get(a, '/contacts/export');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="contacts-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    assert.equal(res.headers['cache-control'], 'no-store');
    const [header] = rows(res.body);
    assert.deepEqual(header, [
      'id',
      'firstName',
      'lastName',
      'mobile',
      'country',
      'email',
      'tags',
      'optIn',
      'optOut',
      'blocked',
      'created',
      'plan',
      'size',
    ]);
    const all = records(res.body);
    assert.equal(all.length, 4);
    const byMobile = new Map(all.map((r) => [r.mobile, r]));
    // Mobiles are plain numbers: kept as they are.
    assert.deepEqual([...byMobile.keys()].sort(), hostile.map((h) => h[2]).sort());
    assert.equal(byMobile.get('+12025550101')?.firstName, `'=HYPERLINK("http://evil.example","x")`);
    assert.equal(byMobile.get('+12025550102')?.firstName, "'@SUM(A1:A9)");
    assert.equal(byMobile.get('+12025550102')?.lastName, "'-2+3");
    assert.equal(byMobile.get('+12025550103')?.firstName, "'+cmd|/c calc");
    // Quotes, commas and accents survive the round trip.
    assert.equal(byMobile.get('+12025550104')?.lastName, 'Müller, "the" boss');
    assert.equal(byMobile.get('+12025550104')?.firstName, 'Zoë');
    assert.equal(byMobile.get('+12025550104')?.tags, 'vip;q4');
    assert.equal(byMobile.get('+12025550104')?.plan, "'=1+1");
    assert.equal(byMobile.get('+12025550104')?.size, '3');
    assert.equal(byMobile.get('+12025550104')?.country, 'US');
    assert.match(byMobile.get('+12025550104')?.created ?? '', /^\d{4}-\d\d-\d\dT/);

    // The list's search narrows the export exactly as it narrows the list.
    for (const q of ['zoë', 'müller', '2025550102', 'nobody', '%', "' OR 1=1 --"]) {
      const listed = body(await get(a, `/contacts?limit=100&q=${encodeURIComponent(q)}`));
      const exported = records((await get(a, `/contacts/export?q=${encodeURIComponent(q)}`)).body);
      assert.deepEqual(
        exported.map((r) => r.id).sort(),
        listed.data.map((c: { id: string }) => c.id).sort(),
        q,
      );
    }
    const tagged = records((await get(a, '/contacts/export?tags=vip,q4&firstName=zo')).body);
    assert.equal(tagged.length, 1);
  });

  it('reads a big export in batches, oldest first, every contact once', async () => {
    const acc = await svc.newAccount();
    const csv = ['firstName,mobile'];
    for (let i = 0; i < 2_345; i++) csv.push(`P${i},+1303555${String(i).padStart(4, '0')}`);
    const up = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
      auth: acc.auth,
      headers: { 'content-type': 'text/csv' },
      payload: csv.join('\n'),
    });
    assert.equal(up.statusCode, 201, up.body);
    const res = await get(acc, '/contacts/export');
    assert.equal(res.statusCode, 200);
    // Streamed: no length known before the end.
    assert.equal(res.headers['content-length'], undefined);
    const all = records(res.body);
    assert.equal(all.length, 2_345);
    assert.equal(new Set(all.map((r) => r.id)).size, 2_345);
    assert.deepEqual(
      all.map((r) => r.id),
      all.map((r) => r.id).sort(),
    );
    assert.ok(res.body.includes('\r\n'), 'CRLF line ends');
  });

  it('exports the messages of a period, by status and direction, as the messages API lists them', async () => {
    svc.startWorkers();
    const from = new Date(Date.now() - 60_000).toISOString();
    const c = body(
      await call(svc.api, 'POST', `${base(a)}/contacts`, {
        auth: a.auth,
        json: { firstName: 'Msg', lastName: 'Person', mobile: '+12025550150' },
      }),
    ).data[0];
    const sent = await call(svc.api, 'POST', `${base(a)}/messages`, {
      auth: a.auth,
      json: { template: '=cmd|" /C calc"!A0 and hello', contacts: [{ id: c.id }] },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const { rows: nums } = await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' LIMIT 1`,
      [a.accountId],
    );
    const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+12025550150', to: nums[0].number, text: 'thanks' },
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    await eventually(async () => {
      const ms = body(await get(a, `/messages?from=${from}`)).data;
      return ms.length === 2 && ms.some((m: { status: string }) => m.status === 'delivered');
    });
    const to = new Date(Date.now() + 60_000).toISOString();
    const res = await get(a, `/messages/export?from=${from}&to=${to}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(
      String(res.headers['content-disposition']),
      /filename="messages-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv"/,
    );
    const all = records(res.body);
    assert.deepEqual(Object.keys(all[0]), [
      'id',
      'created',
      'direction',
      'from',
      'to',
      'contactId',
      'contactName',
      'status',
      'segments',
      'encoding',
      'price',
      'currency',
      'errorCode',
      'error',
      'text',
      'campaignId',
      'jobId',
      'sent',
      'delivered',
    ]);
    const listed = body(await get(a, `/messages?from=${from}&to=${to}`)).data;
    assert.deepEqual(
      all.map((m) => m.id),
      listed.map((m: { id: string }) => m.id).reverse(),
    );
    const out = all.find((m) => m.direction === 'outbound');
    assert.equal(out?.text, `'=cmd|" /C calc"!A0 and hello`);
    assert.equal(out?.contactName, 'Msg Person');
    assert.equal(out?.status, 'delivered');
    assert.equal(out?.currency, 'USD');
    assert.ok(Number(out?.price) > 0);
    assert.equal(all.find((m) => m.direction === 'inbound')?.text, 'thanks');

    const outbound = records(
      (await get(a, `/messages/export?from=${from}&to=${to}&direction=outbound`)).body,
    );
    assert.deepEqual(
      outbound.map((m) => m.direction),
      ['outbound'],
    );
    const received = records((await get(a, `/messages/export?from=${from}&to=${to}&status=received`)).body);
    assert.deepEqual(
      received.map((m) => m.text),
      listed
        .filter((m: { status: string }) => m.status === 'received')
        .map((m: { message: string }) => m.message),
    );
    // A period before it: the header alone.
    const empty = await get(a, '/messages/export?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z');
    assert.equal(rows(empty.body).length, 1);
    // Without contacts:read the contact is its id alone, as in the messages API.
    const noContacts = await svc.newAccount({ scopes: ['messages:read'] });
    const theirs = await get(noContacts, `/messages/export?from=${from}&to=${to}`);
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.ok(!rows(theirs.body)[0].includes('contactName'));
  });

  it('refuses a missing, malformed, reversed or overlong period, an unknown status or direction and overlong filters (400)', async () => {
    for (const q of [
      '',
      '?from=2026-01-01T00:00:00Z',
      '?to=2026-01-01T00:00:00Z',
      '?from=yesterday&to=2026-01-01T00:00:00Z',
      "?from=2026-01-01T00:00:00Z'--&to=2026-01-02T00:00:00Z",
      '?from=2026-01-08T00:00:00Z&to=2026-01-01T00:00:00Z',
      '?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      '?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&status=lost',
      '?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&direction=sideways',
      '?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&status=%00',
    ]) {
      const res = await get(a, `/messages/export${q}`);
      assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
      assert.equal(body(res).error.code.startsWith('VAL-'), true, q);
    }
    for (const q of [`?q=${'x'.repeat(201)}`, '?q=%00', `?tags=${'t,'.repeat(600)}`]) {
      const res = await get(a, `/contacts/export${q}`);
      assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
    }
  });

  it('needs a token for the account with the read scope (401, 403)', async () => {
    const period = '?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z';
    for (const path of ['/contacts/export', `/messages/export${period}`]) {
      assert.equal((await call(svc.api, 'GET', `${base(a)}${path}`)).statusCode, 401, path);
      const wrong = await get(a, path, { authorization: 'Bearer not-a-token' });
      assert.equal(wrong.statusCode, 401, path);
      // b's token for a's account: 403, and nothing of a's.
      const theirs = await get(a, path, b.auth);
      assert.equal(theirs.statusCode, 403, path);
      assert.equal(body(theirs).success, false);
    }
    const messagesOnly = await svc.newAccount({ scopes: ['messages:read'] });
    assert.equal((await get(messagesOnly, '/contacts/export')).statusCode, 403);
    const contactsOnly = await svc.newAccount({ scopes: ['contacts:read'] });
    assert.equal((await get(contactsOnly, `/messages/export${period}`)).statusCode, 403);
  });

  it('is in the OpenAPI document as CSV', async () => {
    const doc = body(await call(svc.api, 'GET', '/openapi.json'));
    for (const p of [
      '/v1/accounts/{accountId}/contacts/export',
      '/v1/accounts/{accountId}/messages/export',
      '/v1/accounts/{accountId}/reports/summary/export',
      '/v1/accounts/{accountId}/reports/campaigns/export',
      '/v1/accounts/{accountId}/reports/campaigns/{campaignId}/export',
      '/v1/accounts/{accountId}/reports/jobs/{jobId}/export',
      '/v1/accounts/{accountId}/reports/dripcampaigns/{dripCampaignId}/export',
      '/v1/accounts/{accountId}/reports/workflows/{workflowId}/export',
    ])
      assert.ok(doc.paths[p]?.get?.responses?.['200']?.content?.['text/csv'], p);
  });
});
