/**
 * Timers fire once across workers: three `sparrow worker` processes on one database, and a clock
 * that crosses many firings. Time is moved the way the other timer tests move it: the rows' due
 * times are set into the past (the database's now() is the clock every worker reads), round
 * after round, and each firing's effect is counted: a recurring campaign's send jobs, a scheduled
 * send's messages, a meeting's reminder texts, a workflow wait's following text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { at10, meetingHelpers } from '../http/meetings-support.ts';
import { workerProcesses } from '../support/worker-processes.ts';

const CAMPAIGNS = 3;
const ROUNDS = 5;
const SCHEDULED = 8;
const MEETINGS = 4;
const RUNS = 5;

const node = (id: string, type: string, config?: object) => ({ id, type: { id: type }, config });
const edge = (source: string, target: string) => ({ source, target });

describe('timers fire exactly once across three worker processes', () => {
  let svc: TestService;
  let a: TestAccount;
  const spawnWorker = workerProcesses();
  const m = meetingHelpers(() => svc);
  let seq = 0;
  const base = () => `/v1/accounts/${a.accountId}`;
  const count = async (sql: string, params: unknown[]) => Number((await svc.db.query(sql, params)).rows[0].n);
  const newContact = async () => {
    const res = await call(svc.api, 'POST', `${base()}/contacts`, {
      auth: a.auth,
      json: { mobile: `+1201${String(7_000_000 + seq++).padStart(7, '0')}`, firstName: `T${seq}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0] as { id: string; mobile: { number: string } };
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 1000 });
    // Three workers, started while the test sets up (each takes a moment to start).
    for (let i = 0; i < 3; i++)
      spawnWorker({
        DATABASE_URL: svc.config.databaseUrl!,
        DISPATCH_LEASE_SECONDS: '30',
        // As the test service has it: campaign sends at night would wait for 8:00.
        QUIET_HOURS_ENABLED: 'false',
      });
  });
  after(() => svc.close());

  it('recurring and scheduled campaigns, meeting reminders and workflow waits each fire once', async () => {
    // --- Recurring campaigns whose own schedule would fire once a year: the test's clock fires them.
    const list = body(
      await call(svc.api, 'POST', `${base()}/lists`, { auth: a.auth, json: { name: 'Timers' } }),
    ).data;
    const member = await newContact();
    await call(svc.api, 'POST', `${base()}/lists/${list.id}/contacts`, {
      auth: a.auth,
      json: { contactIds: [member.id] },
    });
    const campaignIds: string[] = [];
    for (let i = 0; i < CAMPAIGNS; i++) {
      const res = await call(svc.api, 'POST', `${base()}/campaigns`, {
        auth: a.auth,
        json: {
          name: `Yearly ${i}`,
          template: `Yearly ${i}`,
          trigger: { code: 'S' },
          filters: { list: { id: list.id } },
          schedule: { frequency: 'OD', timezone: 'UTC', cron: '0 0 1 1 *' },
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      campaignIds.push(body(res).data.id);
    }

    // --- Meetings whose reminders are due, and workflow runs that wait a day.
    const event = await m.newEvent(a, { reminder: { minutesBefore: 60 } });
    const meetingIds: string[] = [];
    for (let i = 0; i < MEETINGS; i++) meetingIds.push((await m.book(event.slug, at10(3 + i))).id);
    const wf = await call(svc.api, 'POST', `${base()}/workflows`, {
      auth: a.auth,
      json: {
        name: 'Wait a day',
        versions: [
          {
            activate: true,
            definition: {
              nodes: [
                node('t', 'trigger.manual'),
                node('pause', 'action.wait', { delay: { days: 1 } }),
                node('later', 'action.send-message', { message: 'A day later' }),
              ],
              edges: [edge('t', 'pause'), edge('pause', 'later')],
            },
          },
        ],
      },
    });
    assert.equal(wf.statusCode, 201, wf.body);
    const workflowId = body(wf).data.id;
    for (let i = 0; i < RUNS; i++) {
      const c = await newContact();
      const res = await call(svc.api, 'POST', `${base()}/workflows/${workflowId}/enrollments`, {
        auth: a.auth,
        json: { contactId: c.id },
      });
      assert.equal(res.statusCode, 201, res.body);
    }

    // Scheduled sends a moment ahead: the real clock crosses them while the workers run.
    const scheduledTo: string[] = [];
    for (let i = 0; i < SCHEDULED; i++) {
      const to = `+1202555${String(3000 + i)}`;
      const res = await call(svc.api, 'POST', `${base()}/messages`, {
        auth: a.auth,
        json: {
          contacts: [{ mobile: { number: to } }],
          template: `Scheduled ${i}`,
          sendAt: new Date(Date.now() + 5000 + i * 150).toISOString(),
        },
      });
      assert.equal(res.statusCode, 200, res.body);
      scheduledTo.push(to);
    }

    // The workflow runs reach their wait; then the day passes for all of them at once.
    await eventually(
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM workflow_runs WHERE workflow_id = $1 AND status = 'waiting'`,
          [workflowId],
        )) === RUNS,
      60_000,
      100,
    );
    await svc.db.query(
      `UPDATE workflow_runs SET due_at = now() - interval '1 second', wait_until = now() - interval '1 second'
        WHERE workflow_id = $1 AND status = 'waiting'`,
      [workflowId],
    );
    await svc.db.query(
      `UPDATE meetings SET reminder_due_at = now() - interval '1 minute' WHERE id = ANY($1)`,
      [meetingIds],
    );

    // The campaigns' clock: ROUNDS firings, each waited for before the next.
    for (let round = 1; round <= ROUNDS; round++) {
      await svc.db.query(
        `UPDATE campaigns SET next_execution = now() - interval '1 second' WHERE id = ANY($1)`,
        [campaignIds],
      );
      await eventually(
        async () =>
          (await count(
            `SELECT count(*)::int AS n FROM campaigns WHERE id = ANY($1) AND next_execution > now() AND claimed_until IS NULL`,
            [campaignIds],
          )) === CAMPAIGNS,
        60_000,
        50,
      );
    }

    // Everything fired and was sent.
    const open = async () => {
      const { rows } = await svc.db.query(
        `SELECT (SELECT count(*) FROM meetings WHERE id = ANY($1) AND reminder_sent_at IS NULL)::int AS reminders,
                (SELECT count(*) FROM workflow_runs WHERE workflow_id = $2 AND status <> 'completed')::int AS runs,
                (SELECT count(*) FROM send_jobs WHERE account_id = $3 AND status = 'scheduled')::int AS scheduled,
                (SELECT count(*) FROM messages WHERE account_id = $3 AND status IN ('queued', 'sending'))::int AS unsent`,
        [meetingIds, workflowId, a.accountId],
      );
      return rows[0] as Record<string, number>;
    };
    let last: Record<string, number> = {};
    await eventually(
      async () => {
        last = await open();
        return Object.values(last).every((n) => n === 0);
      },
      90_000,
      100,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: still open ${JSON.stringify(last)}`);
    });

    // Counted: one job per campaign per firing, one message per scheduled send, one reminder per
    // meeting, one text after each wait.
    const jobs = await svc.db.query<{ campaign_id: string; n: number }>(
      `SELECT campaign_id, count(*)::int AS n FROM send_jobs WHERE campaign_id = ANY($1) GROUP BY campaign_id`,
      [campaignIds],
    );
    assert.deepEqual(
      Object.fromEntries(jobs.rows.map((r) => [r.campaign_id, r.n])),
      Object.fromEntries(campaignIds.map((id) => [id, ROUNDS])),
      `each campaign ran once per firing (${ROUNDS})`,
    );
    assert.equal(
      await count(`SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND body LIKE 'Yearly %'`, [
        a.accountId,
      ]),
      CAMPAIGNS * ROUNDS,
    );
    const scheduled = await svc.db.query<{ to_number: string; n: number }>(
      `SELECT to_number, count(*)::int AS n FROM messages WHERE account_id = $1 AND body LIKE 'Scheduled %'
        GROUP BY to_number`,
      [a.accountId],
    );
    assert.deepEqual(
      Object.fromEntries(scheduled.rows.map((r) => [r.to_number, r.n])),
      Object.fromEntries(scheduledTo.map((to) => [to, 1])),
      'each scheduled send sent once',
    );
    const reminders = await svc.db.query<{ to_number: string; n: number }>(
      `SELECT to_number, count(*)::int AS n FROM messages WHERE account_id = $1 AND outgoing AND body LIKE '%reminder%'
        GROUP BY to_number`,
      [a.accountId],
    );
    assert.equal(reminders.rows.length, MEETINGS, 'a reminder to every attendee');
    assert.ok(
      reminders.rows.every((r) => r.n === 1),
      'one reminder each',
    );
    const later = await svc.db.query<{ contact_id: string; n: number }>(
      `SELECT contact_id, count(*)::int AS n FROM messages WHERE account_id = $1 AND body = 'A day later'
        GROUP BY contact_id`,
      [a.accountId],
    );
    assert.equal(later.rows.length, RUNS, 'every wait ended in its text');
    assert.ok(
      later.rows.every((r) => r.n === 1),
      'one text after each wait',
    );
  });
});
