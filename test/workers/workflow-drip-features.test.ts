import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * What the workflow engine took over from drips, for any workflow: `media` on send-message and
 * `maxDuration` on triggers. No workers run: the runner is called by hand.
 */
describe('workflow engine: media and maxDuration', () => {
  let svc: TestService;
  let acc: TestAccount;
  let base: string;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    acc = await svc.newAccount();
    base = `/v1/accounts/${acc.accountId}`;
  });
  after(() => svc.close());

  const create = (definition: object) =>
    call(svc.api, 'POST', `${base}/workflows`, {
      auth: acc.auth,
      json: { name: 'Flow', versions: [{ definition, activate: true }] },
    });
  const flow = (trigger: object, send: object) => ({
    nodes: [
      { id: 't', type: { id: 'trigger.manual' }, config: trigger },
      { id: 'w', type: { id: 'action.wait' }, config: { delay: { days: 2 } } },
      { id: 'm', type: { id: 'action.send-message' }, config: { message: 'Later', ...send } },
    ],
    edges: [
      { source: 't', target: 'w' },
      { source: 'w', target: 'm' },
    ],
  });
  const contact = async () => {
    const res = await call(svc.api, 'POST', `${base}/contacts`, {
      auth: acc.auth,
      json: { mobile: `+1201${String(8_100_000 + Math.floor(Math.random() * 800_000)).padStart(7, '0')}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0].id as string;
  };
  const run = async (runId: string) =>
    (
      await svc.db.query(
        `SELECT status, end_reason, entered_at, due_at FROM workflow_runs WHERE account_id = $1 AND id = $2`,
        [acc.accountId, runId],
      )
    ).rows[0];

  it('refuses a bad maxDuration or media with 400 WF-014', async () => {
    for (const [trigger, send] of [
      [{ maxDuration: 0 }, {}],
      [{ maxDuration: 1.5 }, {}],
      [{ maxDuration: '3' }, {}],
      [{}, { media: 'https://example.com/a.png' }],
      [{}, { media: [{ href: 'https://example.com/a.png' }] }],
      [{}, { media: [{ url: 'http://127.0.0.1/a.png' }] }],
    ]) {
      const res = await create(flow(trigger, send));
      assert.equal(res.statusCode, 400, `${JSON.stringify([trigger, send])} → ${res.body}`);
      assert.equal(body(res).error.code, 'WF-014');
    }
  });

  it('sends media, and ends a run that outlives maxDuration as expired without sending', async () => {
    const media = [{ url: 'https://example.com/a.png' }];
    const created = await create(flow({ maxDuration: 1 }, { media }));
    assert.equal(created.statusCode, 201, created.body);
    const wf = body(created).data;
    assert.deepEqual(wf.versions[0].definition.nodes[0].config, { maxDuration: 1 });
    assert.deepEqual(wf.versions[0].definition.nodes[2].config, { message: 'Later', media });

    const enroll = async () => {
      const res = await call(svc.api, 'POST', `${base}/workflows/${wf.id}/enrollments`, {
        auth: acc.auth,
        json: { contactId: await contact() },
      });
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data as { id: string; contact: { id: string } };
    };

    // The two-day wait is cut to the one-day limit.
    const late = await enroll();
    const r = await run(late.id);
    assert.equal(r.status, 'waiting');
    assert.equal(r.due_at.getTime() - r.entered_at.getTime(), 86_400_000);
    await svc.db.query(
      `UPDATE workflow_runs SET entered_at = now() - interval '2 days', due_at = now() - interval '1 second'
        WHERE account_id = $1 AND id = $2`,
      [acc.accountId, late.id],
    );
    // Within the limit, the wait ends and the text goes with its media.
    const onTime = await enroll();
    await svc.db.query(
      `UPDATE workflow_runs SET due_at = now() - interval '1 second' WHERE account_id = $1 AND id = $2`,
      [acc.accountId, onTime.id],
    );
    while ((await runDueWorkflows(svc.db, 100, svc.ctx.log, { prices: svc.ctx.config.priceTable })) > 0);

    const expired = await run(late.id);
    assert.deepEqual([expired.status, expired.end_reason], ['stopped', 'expired']);
    const sent = async (contactId: string) =>
      (
        await svc.db.query(
          'SELECT body, media FROM messages WHERE account_id = $1 AND contact_id = $2 AND outgoing',
          [acc.accountId, contactId],
        )
      ).rows;
    assert.deepEqual(await sent(late.contact.id), []);
    const done = await run(onTime.id);
    assert.equal(done.status, 'completed');
    const [m] = await sent(onTime.contact.id);
    assert.equal(m.body, 'Later');
    assert.deepEqual(
      m.media.map((x: { url: string }) => x.url),
      ['https://example.com/a.png'],
    );
  });
});
