import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPool, type Db } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/create-account.ts';
import { getDrip } from '../../src/domain/drips/get-drip.ts';
import { getExecution } from '../../src/domain/drips/get-execution.ts';
import { handleTriggers } from '../../src/domain/workflows/handle-triggers.ts';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { DEFAULT_PRICE_TABLE } from '../../src/messaging/pricing.ts';
import { newId } from '../../src/util/ids.ts';
import { applyMigrations, createScratchDatabase, type ScratchDatabase } from '../support/migration-db.ts';

const CONVERSION = '0270_drips_on_workflows.sql';
/** A step of the engine that fails fails the test (the runner logs per-run failures and goes on). */
const fail = (msg: string) => assert.fail(msg);

/**
 * Migration 0270 on a database that ran drips on their own engine: drips with running and ended
 * executions and a queued cause become workflows, runs and a queued workflow cause, and then go
 * on without losing or repeating a step.
 */
describe('migration 0270: drips and their in-flight executions move onto the workflow engine', () => {
  let scratch: ScratchDatabase | undefined;
  let db: Db;
  let accountId: string;
  const dripId = newId();
  const steps = [newId(), newId()];
  const listId = newId();
  const contacts = [newId(), newId(), newId(), newId(), newId()];
  const [midway, replyWindow, engaged, errored] = [newId(), newId(), newId(), newId()];

  before(async () => {
    scratch = await createScratchDatabase('mig');
    const url = scratch.url;
    await applyMigrations(url, (f) => f < CONVERSION);
    db = createPool(url, 4);
    ({
      account: { id: accountId },
    } = await createAccount(db, { name: 'Before 0270', balance: 100 }));

    // The drip engine's rows, as its code wrote them.
    await db.query(
      `INSERT INTO contacts (account_id, id, first_name, mobile_number, mobile_country, mobile_valid)
       SELECT $1, c, 'Ann', '+1201555' || lpad(i::text, 4, '0'), 'US', true
         FROM unnest($2::uuid[]) WITH ORDINALITY AS x(c, i)`,
      [accountId, contacts],
    );
    await db.query(`INSERT INTO lists (account_id, id, name) VALUES ($1, $2, 'Joiners')`, [
      accountId,
      listId,
    ]);
    await db.query(
      `INSERT INTO drip_campaigns (account_id, id, name, trigger_type, list_id, trigger_delay, max_duration, active)
       VALUES ($1, $2, 'Welcome', 'list', $3, '{"days": 0, "hours": 2, "minutes": 0}', 30, true)`,
      [accountId, dripId, listId],
    );
    await db.query(
      `INSERT INTO drip_steps (account_id, id, drip_id, position, message, delay, media) VALUES
         ($1, $2, $4, 0, 'Step one', '{"days": 0, "hours": 0, "minutes": 0}', '[]'),
         ($1, $3, $4, 1, 'Step two', '{"days": 1, "hours": 0, "minutes": 0}',
          '[{"url": "https://example.com/a.png"}]')`,
      [accountId, steps[0], steps[1], dripId],
    );
    await db.query(
      `INSERT INTO drip_executions (account_id, id, drip_id, contact_id, status, next_position, due_at,
                                    last_step_id, error, entered_at, ended_at) VALUES
         ($1, $2, $6, $7, 'active', 1, now() + interval '5 hours', $11, NULL, now() - interval '1 day', NULL),
         ($1, $3, $6, $8, 'active', 2, now() + interval '3 hours', $12, NULL, now() - interval '2 days', NULL),
         ($1, $4, $6, $9, 'engaged', 1, NULL, $11, NULL, now() - interval '3 days', now() - interval '2 days'),
         ($1, $5, $6, $10, 'errored', 0, NULL, $11, '{"code": "ACCT-002", "description": "No balance."}',
          now() - interval '4 days', now() - interval '4 days')`,
      [accountId, midway, replyWindow, engaged, errored, dripId, ...contacts.slice(0, 4), steps[0], steps[1]],
    );
    await db.query(
      `INSERT INTO drip_step_sends (account_id, execution_id, position, step_id, message_id, error) VALUES
         ($1, $2, 0, $6, $7, NULL), ($1, $3, 0, $6, $7, NULL), ($1, $3, 1, $8, $7, NULL),
         ($1, $4, 0, $6, $7, NULL), ($1, $5, 0, $6, NULL, '{"code": "ACCT-002", "description": "No balance."}')`,
      [accountId, midway, replyWindow, engaged, errored, steps[0], newId(), steps[1]],
    );
    // A cause the drip-entries worker had not taken yet.
    await db.query(
      `INSERT INTO drip_entry_queue (account_id, kind, contact_id, list_id) VALUES ($1, 'list-joined', $2, $3)`,
      [accountId, contacts[4], listId],
    );

    await applyMigrations(url, (f) => f >= CONVERSION);
  });

  after(async () => {
    await db?.end();
    await scratch?.drop().catch(() => {});
  });

  const execution = async (contactId: string) =>
    (await getExecution(db, accountId, dripId, { contactId, offset: 0 })).execution;
  const texts = async (contactId: string) => {
    const { rows } = await db.query(
      'SELECT body FROM messages WHERE account_id = $1 AND contact_id = $2 AND outgoing ORDER BY created_at, id',
      [accountId, contactId],
    );
    return rows.map((r) => r.body as string);
  };
  const makeDue = (runId: string) =>
    db.query(
      `UPDATE workflow_runs SET due_at = now() - interval '1 second' WHERE account_id = $1 AND id = $2`,
      [accountId, runId],
    );

  it('drops the drip queue, executions, step sends and their triggers', async () => {
    const { rows } = await db.query(
      `SELECT to_regclass('drip_entry_queue') AS q, to_regclass('drip_executions') AS x,
              to_regclass('drip_step_sends') AS s,
              (SELECT count(*)::int FROM pg_trigger WHERE tgname LIKE '%drip%') AS triggers`,
    );
    assert.deepEqual(rows[0], { q: null, x: null, s: null, triggers: 0 });
  });

  it('keeps every execution with its status, due time, messages sent and stats', async () => {
    const drip = await getDrip(db, accountId, dripId);
    assert.equal(drip.active, true);
    assert.equal(drip.maxDuration, 30);
    // The one in its reply window has sent its last message: completed, not active (issue 27).
    assert.deepEqual(drip.stats, { entered: 4, active: 1, errored: 1, noAction: 1, optOut: 0, engaged: 1 });
    assert.equal(drip.messages[0].stats.entered, 4);
    assert.equal(drip.messages[0].stats.engaged, 1);
    assert.equal(drip.messages[0].stats.errored, 1);
    assert.equal(drip.messages[1].stats.entered, 1);

    const m = await execution(contacts[0]);
    assert.equal(m.id, midway);
    assert.equal(m.status, 'active');
    assert.equal(m.stepsSent, 1);
    assert.ok(m.due && Date.parse(m.due) > Date.now() + 4 * 3600_000, 'still due when it was');
    const e = await execution(contacts[2]);
    assert.equal(e.status, 'engaged');
    assert.equal(e.due, undefined, 'an ended execution has no due time (left out, never null)');
    const x = await execution(contacts[3]);
    assert.equal(x.status, 'errored');
    assert.equal(x.error?.code, 'ACCT-002');

    // The drip's workflow is its own: the active version, the same shape the drip has.
    const { rows } = await db.query(
      `SELECT w.drip, v.active_at IS NOT NULL AS active, v.definition -> 'nodes' AS nodes
         FROM workflows w JOIN workflow_versions v ON v.account_id = w.account_id AND v.workflow_id = w.id
        WHERE w.account_id = $1 AND w.id = $2`,
      [accountId, dripId],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0].drip, true);
    assert.equal(rows[0].active, true);
    assert.deepEqual(
      rows[0].nodes.map((n: { id: string; typeId: string; config: object }) => [n.id, n.typeId, n.config]),
      [
        ['trigger', 'trigger.list-joined', { listId, maxDuration: 30 }],
        ['wait-0', 'action.wait', { delay: { days: 0, hours: 2, minutes: 0 } }],
        ['send-1', 'action.send-message', { message: 'Step one' }],
        ['wait-2', 'action.wait', { delay: { days: 1, hours: 0, minutes: 0 } }],
        [
          'send-2',
          'action.send-message',
          { message: 'Step two', media: [{ url: 'https://example.com/a.png' }] },
        ],
        ['end', 'action.end', {}],
      ],
    );
  });

  it('a running execution goes on with its next message, never the one it sent', async () => {
    await makeDue(midway);
    await runDueWorkflows(db, 100, fail, { prices: DEFAULT_PRICE_TABLE });
    assert.deepEqual(await texts(contacts[0]), ['Step two']);
    const m = await execution(contacts[0]);
    assert.equal(m.status, 'completed', 'in its reply window, with its last message sent');
    assert.equal(m.due, undefined, 'nothing more is due');
    assert.equal(m.stepsSent, 2);
    await makeDue(midway);
    await runDueWorkflows(db, 100, fail, { prices: DEFAULT_PRICE_TABLE });
    assert.equal((await execution(contacts[0])).status, 'completed');
    assert.deepEqual(await texts(contacts[0]), ['Step two']);
  });

  it('an execution in its reply window completes without sending anything', async () => {
    await makeDue(replyWindow);
    await runDueWorkflows(db, 100, fail, { prices: DEFAULT_PRICE_TABLE });
    assert.equal((await execution(contacts[1])).status, 'completed');
    assert.deepEqual(await texts(contacts[1]), []);
  });

  it('a cause queued for the old engine enters its contact', async () => {
    await handleTriggers(db, 100, fail);
    const n = await execution(contacts[4]);
    assert.equal(n.status, 'active');
    assert.ok(n.due && Date.parse(n.due) - Date.parse(n.entered) === 2 * 3600_000, 'after the trigger delay');
  });
});
