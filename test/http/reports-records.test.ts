import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';

/**
 * GET …/reports/{campaigns|jobs|dripcampaigns|workflows}/{id}: the summary's figures for one
 * record, matching what GET …/messages shows of that record's messages.
 */
// An enrollment, its run, the dispatch and the simulator's receipt: four workers' rounds, each of
// which may back off after a failed attempt on a busy machine (one CI run took longer than 20 s).
const AUTOMATION_MS = 60_000;

describe('GET …/reports/{kind}/{id}', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  let ours: string;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const report = (acc: TestAccount, kind: string, id: string, q = '', auth = acc.auth) =>
    call(svc.api, 'GET', `${base(acc)}/reports/${kind}/${id}${q}`, { auth });
  const figures = async (acc: TestAccount, kind: string, id: string) => {
    const res = await report(acc, kind, id);
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  const newContact = async (acc: TestAccount) => {
    const mobile = `+1202${String(5_500_000 + seq++).padStart(7, '0')}`;
    const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
      auth: acc.auth,
      json: { mobile, firstName: `R${seq}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return { id: body(res).data[0].id as string, mobile };
  };
  /** The account's messages narrowed by `q`, as the messages API shows them. */
  const messages = async (acc: TestAccount, q: string) =>
    body(await call(svc.api, 'GET', `${base(acc)}/messages?limit=100&${q}`, { auth: acc.auth })).data as {
      status: string;
      direction?: string;
      message?: string;
    }[];
  const delivered = (ms: { status: string }[]) => ms.filter((m) => m.status === 'delivered').length;
  const reply = async (from: string, text: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: ours, text },
    });
    assert.equal(res.statusCode, 200, res.body);
  };

  /** A quick campaign to `n` new contacts of a new list: the campaign, its job and the recipients. */
  const quickCampaign = async (acc: TestAccount, n: number) => {
    const list = body(
      await call(svc.api, 'POST', `${base(acc)}/lists`, { auth: acc.auth, json: { name: `L${seq++}` } }),
    ).data;
    const contacts = [];
    for (let i = 0; i < n; i++) contacts.push(await newContact(acc));
    await call(svc.api, 'POST', `${base(acc)}/lists/${list.id}/contacts`, {
      auth: acc.auth,
      json: { contactIds: contacts.map((c) => c.id) },
    });
    const groups = body(await call(svc.api, 'GET', `${base(acc)}/groups`, { auth: acc.auth })).data;
    const res = await call(svc.api, 'POST', `${base(acc)}/quickcampaigns`, {
      auth: acc.auth,
      json: {
        name: `Sale ${seq++}`,
        groupId: groups.find((g: { isDefault: boolean }) => g.isDefault).id,
        listId: list.id,
        message: { message: 'Sale today' },
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { campaign, job } = body(res).data;
    return { campaignId: campaign.id as string, jobId: job.id as string, contacts };
  };

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
  });
  after(() => svc.close());

  it("a campaign's and its job's figures match the messages API, with only their recipients' replies and opt-outs", async () => {
    const { campaignId, jobId, contacts } = await quickCampaign(a, 3);
    const shown = await eventually(async () => {
      const ms = await messages(a, `campaignId=${campaignId}`);
      return ms.length === 3 && delivered(ms) === 3 ? ms : undefined;
    });
    await reply(contacts[0].mobile, 'nice');
    await reply(contacts[1].mobile, 'STOP');
    // Someone else's text is the account's reply, not the campaign's.
    await reply('+12025550177', 'hello?');
    const r = await eventually(async () => {
      const f = await figures(a, 'campaigns', campaignId);
      return f.totals.replies === 2 && f.totals.optOuts === 1 ? f : undefined;
    });
    assert.equal(r.campaignId, campaignId);
    assert.equal(r.totals.sent, shown.length);
    assert.equal(r.totals.delivered, delivered(shown));
    assert.equal(r.totals.failed, 0);
    assert.equal(r.totals.deliveryRate, 1);
    assert.equal(r.days.at(-1).sent, 3);
    assert.equal(r.days.length, 31);
    const { rows } = await svc.db.query(
      'SELECT sum(price)::float8 AS spend FROM messages WHERE account_id = $1 AND campaign_id = $2',
      [a.accountId, campaignId],
    );
    assert.equal(r.totals.spend, Math.round(rows[0].spend * 10_000) / 10_000);
    assert.ok(r.totals.spend > 0);

    const j = await figures(a, 'jobs', jobId);
    assert.equal(j.jobId, jobId);
    assert.deepEqual(j.totals, r.totals);
    assert.equal((await messages(a, `jobId=${jobId}`)).length, j.totals.sent);

    // A period: a week in the past holds nothing of it.
    const old = await figures(
      a,
      'campaigns',
      `${campaignId}?from=2026-01-01T00:00:00Z&to=2026-01-08T00:00:00Z`,
    );
    assert.equal(old.totals.sent, 0);
    assert.equal(old.days.length, 7);
  });

  it("a drip's figures are the texts its executions sent, as the messages API shows them", async () => {
    const res = await call(svc.api, 'POST', `${base(a)}/dripcampaigns`, {
      auth: a.auth,
      json: {
        name: `Welcome ${seq++}`,
        trigger: { type: 'contact-created', delay: {} },
        messages: [{ message: 'Welcome aboard', delay: {} }],
        activate: true,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const dripId = body(res).data.id as string;
    const c = await newContact(a);
    const shown = await eventually(async () => {
      const ms = await messages(a, `contactId=${c.id}`);
      return ms.length === 1 && ms[0].status === 'delivered' ? ms : undefined;
    }, AUTOMATION_MS);
    const r = await eventually(async () => {
      const f = await figures(a, 'dripcampaigns', dripId);
      return f.totals.delivered === 1 ? f : undefined;
    }, AUTOMATION_MS);
    assert.equal(r.dripId, dripId);
    assert.equal(r.totals.sent, shown.length);
    assert.equal(r.totals.failed, 0);
    assert.equal(r.totals.clicks, 0);
    await reply(c.mobile, 'thanks!');
    await eventually(
      async () => (await figures(a, 'dripcampaigns', dripId)).totals.replies === 1,
      AUTOMATION_MS,
    );
    // The drip's engine is a hidden workflow: no workflow report for it.
    const hidden = await report(a, 'workflows', dripId);
    assert.equal(hidden.statusCode, 404);
    assert.equal(body(hidden).error.code, 'WF-001');
  });

  it("a workflow's figures are the texts its runs sent, and another workflow's are not in them", async () => {
    const create = async () => {
      const res = await call(svc.api, 'POST', `${base(a)}/workflows`, {
        auth: a.auth,
        json: {
          name: `Flow ${seq++}`,
          versions: [
            {
              name: 'v1',
              activate: true,
              definition: {
                nodes: [
                  { id: 'start', type: { id: 'trigger.manual' } },
                  {
                    id: 'send',
                    type: { id: 'action.send-message' },
                    config: { message: 'Hi {{{firstName}}}' },
                  },
                  { id: 'end', type: { id: 'action.end' } },
                ],
                edges: [
                  { id: 'e1', source: 'start', target: 'send' },
                  { id: 'e2', source: 'send', target: 'end' },
                ],
              },
            },
          ],
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data.id as string;
    };
    const w1 = await create();
    const w2 = await create();
    const contacts = [await newContact(a), await newContact(a), await newContact(a)];
    for (const [w, c] of [
      [w1, contacts[0]],
      [w1, contacts[1]],
      [w2, contacts[2]],
    ] as const) {
      const res = await call(svc.api, 'POST', `${base(a)}/workflows/${w}/enrollments`, {
        auth: a.auth,
        json: { contactId: c.id },
      });
      assert.ok(res.statusCode < 300, res.body);
    }
    let shown = 0;
    await eventually(async () => {
      shown = 0;
      // Only the workflow's texts: the drip of the test above (contact-created) welcomes them too.
      for (const c of contacts.slice(0, 2))
        shown += delivered(
          (await messages(a, `contactId=${c.id}`)).filter((m: { message?: string }) =>
            m.message?.startsWith('Hi '),
          ),
        );
      return shown === 2;
    }, AUTOMATION_MS);
    const r = await eventually(async () => {
      const f = await figures(a, 'workflows', w1);
      return f.totals.delivered === 2 ? f : undefined;
    }, AUTOMATION_MS);
    assert.equal(r.workflowId, w1);
    assert.equal(r.totals.sent, shown);
    const other = await eventually(async () => {
      const f = await figures(a, 'workflows', w2);
      return f.totals.delivered === 1 ? f : undefined;
    }, AUTOMATION_MS);
    assert.equal(other.totals.sent, 1);
  });

  it("answers 404 for an unknown record, another account's, or a hostile id — never its figures", async () => {
    const theirs = await quickCampaign(b, 1);
    const cases: [string, string, string][] = [
      ['campaigns', theirs.campaignId, 'CAMP-001'],
      ['jobs', theirs.jobId, 'MSG-007'],
      ['campaigns', NOT_THERE, 'CAMP-001'],
      ['jobs', NOT_THERE, 'MSG-007'],
      ['dripcampaigns', NOT_THERE, 'DRIP-001'],
      ['workflows', NOT_THERE, 'WF-001'],
    ];
    for (const hostile of [
      'abc',
      "1'%20OR%20'1'='1",
      '9'.repeat(100),
      '%E2%80%AEevil',
      '..%2F..%2Fsummary',
    ]) {
      cases.push(['campaigns', hostile, 'CAMP-001'], ['jobs', hostile, 'MSG-007']);
      cases.push(['dripcampaigns', hostile, 'DRIP-001'], ['workflows', hostile, 'WF-001']);
    }
    for (const [kind, id, code] of cases) {
      const res = await report(a, kind, id);
      assert.equal(res.statusCode, 404, `${kind}/${id}: ${res.body}`);
      assert.equal(body(res).success, false);
      assert.equal(body(res).error.code, code, `${kind}/${id}`);
    }
    // A NUL in the URL is refused before any route (400), as everywhere.
    const nul = await report(a, 'campaigns', `${NOT_THERE}%00`);
    assert.equal(nul.statusCode, 400);
    assert.equal(body(nul).error.code, 'VAL-001');
    // Their own account sees them.
    assert.equal((await figures(b, 'campaigns', theirs.campaignId)).campaignId, theirs.campaignId);
  });

  it('refuses a malformed, reversed or overlong period (400)', async () => {
    const { jobId } = await quickCampaign(a, 1);
    for (const q of [
      '?from=yesterday',
      "?from=2026-01-01T00:00:00Z'--",
      '?to=%3Cscript%3E',
      '?from=2026-01-08T00:00:00Z&to=2026-01-01T00:00:00Z',
      '?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    ]) {
      const res = await report(a, 'jobs', jobId, q);
      assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
      assert.equal(body(res).success, false);
      assert.equal(body(res).error.code, 'VAL-001', q);
    }
  });

  it('needs a token with messages:read for the account (401, 403)', async () => {
    const { campaignId } = await quickCampaign(a, 1);
    for (const kind of ['campaigns', 'jobs', 'dripcampaigns', 'workflows']) {
      const anon = await call(svc.api, 'GET', `${base(a)}/reports/${kind}/${campaignId}`);
      assert.equal(anon.statusCode, 401, kind);
      const wrong = await call(svc.api, 'GET', `${base(a)}/reports/${kind}/${campaignId}`, {
        auth: { authorization: 'Bearer not-a-token' },
      });
      assert.equal(wrong.statusCode, 401, kind);
      // b's token for a's account: 403, whatever the id.
      assert.equal((await report(a, kind, campaignId, '', b.auth)).statusCode, 403, kind);
    }
    const noScope = await svc.newAccount({ scopes: ['contacts:read'] });
    assert.equal((await report(noScope, 'campaigns', NOT_THERE)).statusCode, 403);
  });

  it('is in the OpenAPI document', async () => {
    const doc = body(await call(svc.api, 'GET', '/openapi.json'));
    for (const p of [
      '/v1/accounts/{accountId}/reports/campaigns/{campaignId}',
      '/v1/accounts/{accountId}/reports/jobs/{jobId}',
      '/v1/accounts/{accountId}/reports/dripcampaigns/{dripCampaignId}',
      '/v1/accounts/{accountId}/reports/workflows/{workflowId}',
    ])
      assert.ok(doc.paths[p]?.get, p);
  });
});
