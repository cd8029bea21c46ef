import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

/** The rows of a CSV answer as objects by the header's names. */
function records(text: string): Record<string, string>[] {
  const [header, ...data] = parse(text.replace(/^\uFEFF/, '')) as string[][];
  return data.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

/**
 * GET …/reports/campaigns (campaigns side by side) and the report exports: each campaign's row is
 * its campaign report's totals for the same period (what came after each recipient's first message
 * of it), and each CSV holds the JSON report's figures.
 */
describe('GET …/reports/campaigns and the report exports', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  let ours: string;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const get = (acc: TestAccount, path: string, auth = acc.auth) =>
    call(svc.api, 'GET', `${base(acc)}${path}`, { auth });
  const reply = async (from: string, text: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: ours, text },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const newContact = async (acc: TestAccount) => {
    const mobile = `+1202${String(5_600_000 + seq++).padStart(7, '0')}`;
    const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, { auth: acc.auth, json: { mobile } });
    assert.equal(res.statusCode, 201, res.body);
    return { id: body(res).data[0].id as string, mobile };
  };
  const quickCampaign = async (acc: TestAccount, contacts: { id: string }[], name: string) => {
    const list = body(
      await call(svc.api, 'POST', `${base(acc)}/lists`, { auth: acc.auth, json: { name: `L${seq++}` } }),
    ).data;
    await call(svc.api, 'POST', `${base(acc)}/lists/${list.id}/contacts`, {
      auth: acc.auth,
      json: { contactIds: contacts.map((c) => c.id) },
    });
    const groups = body(await get(acc, '/groups')).data;
    const res = await call(svc.api, 'POST', `${base(acc)}/quickcampaigns`, {
      auth: acc.auth,
      json: {
        name,
        groupId: groups.find((g: { isDefault: boolean }) => g.isDefault).id,
        listId: list.id,
        message: { message: 'Sale today' },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const campaignId = body(res).data.campaign.id as string;
    await eventually(async () => {
      const ms = body(await get(acc, `/messages?campaignId=${campaignId}`)).data;
      // Settled: delivered, or failed to an opted-out recipient.
      return (
        ms.length === contacts.length &&
        ms.every((m: { status: string }) => m.status === 'delivered' || m.status === 'failed')
      );
    });
    return campaignId;
  };

  let first: string;
  let second: string;

  before(async () => {
    svc = await startTestService({ simulatorDeliveryDelayMs: 0, rateLimitPerMinute: 1_000_000 });
    svc.startWorkers();
    a = await svc.newAccount({ balance: 100 });
    b = await svc.newAccount({ balance: 100 });
    const { rows } = await svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
      [a.accountId],
    );
    ours = rows[0].number;
    const people = [await newContact(a), await newContact(a), await newContact(a)];
    // A reply before any campaign is nobody's: not credited to the campaigns sent after it.
    await reply(people[0].mobile, 'hello before');
    first = await quickCampaign(a, people.slice(0, 2), '=First sale');
    await reply(people[0].mobile, 'yes');
    await reply(people[1].mobile, 'STOP');
    second = await quickCampaign(a, people, 'Second sale');
    await reply(people[2].mobile, 'tell me more');
    // b's campaign is not a's.
    await quickCampaign(b, [await newContact(b)], 'Theirs');
  });
  after(() => svc.close());

  it("answers each campaign that sent in the period, latest first, with its campaign report's totals", async () => {
    const res = await get(a, '/reports/campaigns');
    assert.equal(res.statusCode, 200, res.body);
    const page = body(res);
    assert.deepEqual(
      page.data.map((r: { campaignId: string }) => r.campaignId),
      [second, first],
    );
    assert.deepEqual(page.pagination, { limit: 20, offset: 0, hasNext: false, totalCount: 2 });
    for (const row of page.data) {
      const report = await eventually(async () => {
        const r = body(await get(a, `/reports/campaigns/${row.campaignId}`)).data;
        return r.totals.replies + r.totals.optOuts > 0 ? r : undefined;
      });
      const t = report.totals;
      assert.deepEqual(
        {
          sent: row.sent,
          delivered: row.delivered,
          deliveryRate: row.deliveryRate,
          failed: row.failed,
          optedOut: row.optedOut,
          replies: row.replies,
          optOuts: row.optOuts,
          clicks: row.clicks,
          spend: row.spend,
        },
        {
          sent: t.sent,
          delivered: t.delivered,
          deliveryRate: t.deliveryRate,
          failed: t.failed,
          optedOut: t.optedOut,
          replies: t.replies,
          optOuts: t.optOuts,
          clicks: t.clicks,
          spend: t.spend,
        },
        row.name,
      );
      assert.equal(row.currency, 'USD');
      assert.match(row.firstSentAt, /^\d{4}-\d\d-\d\dT/);
    }
    const [s, f] = page.data;
    assert.equal(f.name, '=First sale');
    assert.equal(f.sent, 2);
    // The first campaign: "yes" and STOP came after it (the reply before it does not count) and
    // "tell me more" (its recipient got only the second one) is not its.
    assert.equal(f.replies, 2);
    assert.equal(f.optOuts, 1);
    // The second: only "tell me more" came after it (the opted-out contact was not sent to).
    assert.equal(s.sent, 2);
    assert.equal(s.optedOut, 1);
    assert.equal(s.failed, 0);
    assert.equal(s.replies, 1);
    assert.equal(s.optOuts, 0);
    assert.ok(s.spend > 0);

    const paged = body(await get(a, '/reports/campaigns?limit=1&offset=1'));
    assert.deepEqual(
      paged.data.map((r: { campaignId: string }) => r.campaignId),
      [first],
    );
    assert.deepEqual(paged.pagination, { limit: 1, offset: 1, hasNext: false, totalCount: 2 });
    const past = body(await get(a, '/reports/campaigns?offset=5'));
    assert.deepEqual(past.pagination, { limit: 20, offset: 5, hasNext: false, totalCount: 2 });
    const old = body(await get(a, '/reports/campaigns?from=2026-01-01T00:00:00Z&to=2026-01-08T00:00:00Z'));
    assert.equal(old.pagination.totalCount, 0);
  });

  it('exports the comparison, the account report and a campaign report as CSV, as their JSON', async () => {
    const compared = body(await get(a, '/reports/campaigns')).data;
    const csv = await get(a, '/reports/campaigns/export');
    assert.equal(csv.statusCode, 200, csv.body);
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    const rows = records(csv.body);
    assert.deepEqual(
      rows.map((r) => [r.campaignId, Number(r.sent), Number(r.replies), Number(r.spend), r.currency]),
      compared.map((r: Record<string, unknown>) => [r.campaignId, r.sent, r.replies, r.spend, r.currency]),
    );
    // A campaign's name is text a spreadsheet must not run.
    assert.equal(rows.find((r) => r.campaignId === first)?.name, "'=First sale");

    const period = 'from=2026-01-01T00:00:00Z&to=2026-01-04T00:00:00Z';
    for (const path of ['/reports/summary', `/reports/campaigns/${first}`]) {
      const json = body(await get(a, `${path}?${period}`)).data;
      const res = await get(a, `${path}/export?${period}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(
        String(res.headers['content-disposition']),
        /filename="(report|campaign-report)-2026-01-01-to-2026-01-04\.csv"/,
      );
      const days = records(res.body);
      assert.deepEqual(
        days.map((d) => d.day),
        json.days.map((d: { day: string }) => d.day),
      );
      assert.deepEqual(Object.keys(days[0]), [
        'day',
        'sent',
        'delivered',
        'failed',
        'optedOut',
        'replies',
        'optOuts',
        'clicks',
        'spend',
        'currency',
      ]);
    }
    const month = body(await get(a, '/reports/summary')).data;
    const monthCsv = records((await get(a, '/reports/summary/export')).body);
    assert.equal(
      monthCsv.reduce((n, d) => n + Number(d.sent), 0),
      month.totals.sent,
    );
    assert.equal(
      Math.round(monthCsv.reduce((n, d) => n + Number(d.spend), 0) * 10_000) / 10_000,
      month.totals.spend,
    );
  });

  it("never shows another account's campaigns, and a report export of another account's record is its 404", async () => {
    const theirs = body(await get(b, '/reports/campaigns')).data;
    assert.equal(theirs.length, 1);
    assert.equal(theirs[0].name, 'Theirs');
    for (const [kind, code] of [
      ['campaigns', 'CAMP-001'],
      ['jobs', 'MSG-007'],
      ['dripcampaigns', 'DRIP-001'],
      ['workflows', 'WF-001'],
    ]) {
      for (const id of [theirs[0].campaignId, NOT_THERE, 'not-an-id', "1'%20OR%20'1'='1"]) {
        const res = await get(a, `/reports/${kind}/${id}/export`);
        assert.equal(res.statusCode, 404, `${kind}/${id}: ${res.body}`);
        assert.equal(body(res).error.code, code);
      }
    }
  });

  it('refuses a malformed, reversed or overlong period and a bad page (400)', async () => {
    for (const path of ['/reports/campaigns', '/reports/campaigns/export', '/reports/summary/export']) {
      for (const q of [
        '?from=yesterday',
        "?from=2026-01-01T00:00:00Z'--",
        '?to=%3Cscript%3E',
        '?from=2026-01-08T00:00:00Z&to=2026-01-01T00:00:00Z',
        '?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
        '?from=%00',
      ]) {
        const res = await get(a, `${path}${q}`);
        assert.equal(res.statusCode, 400, `${path}${q}: ${res.body}`);
        assert.equal(body(res).error.code, 'VAL-001', `${path}${q}`);
      }
    }
    for (const q of ['?limit=0', '?limit=101', '?offset=-1', '?limit=abc']) {
      assert.equal((await get(a, `/reports/campaigns${q}`)).statusCode, 400, q);
    }
  });

  it('needs a token for the account with messages:read (401, 403)', async () => {
    for (const path of [
      '/reports/campaigns',
      '/reports/campaigns/export',
      '/reports/summary/export',
      `/reports/campaigns/${first}/export`,
    ]) {
      assert.equal((await call(svc.api, 'GET', `${base(a)}${path}`)).statusCode, 401, path);
      assert.equal((await get(a, path, { authorization: 'Bearer not-a-token' })).statusCode, 401, path);
      assert.equal((await get(a, path, b.auth)).statusCode, 403, path);
    }
    const noScope = await svc.newAccount({ scopes: ['contacts:read'] });
    assert.equal((await get(noScope, '/reports/campaigns')).statusCode, 403);
    assert.equal((await get(noScope, '/reports/summary/export')).statusCode, 403);
  });

  it('is in the OpenAPI document', async () => {
    const doc = body(await call(svc.api, 'GET', '/openapi.json'));
    assert.ok(doc.paths['/v1/accounts/{accountId}/reports/campaigns']?.get);
  });
});
