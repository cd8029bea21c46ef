import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * The events trigger that queues workflow triggers (migrations 0090, 0368) decides per event,
 * whichever mix of accounts and kinds one statement inserts: a created contact is queued only for
 * an account with an active contact-created trigger, an inbound text for an account with a keyword
 * trigger or a live run of its contact, an opt-out only for a contact with a live run; other
 * events and ids that are not ids are skipped. No workers run: the queue is read as the trigger
 * left it.
 */
describe('workflow trigger queue, filled by the events trigger', () => {
  let svc: TestService;
  let withFlow: TestAccount;
  let without: TestAccount;
  let keyword: TestAccount;

  const activate = async (accountId: string, typeId: string) => {
    const { rows } = await svc.db.query<{ id: string }>(
      `INSERT INTO workflows (account_id, id, name) VALUES ($1, sparrow_uuidv7(), 'flow') RETURNING id`,
      [accountId],
    );
    await svc.db.query(
      `INSERT INTO workflow_versions (account_id, id, workflow_id, definition, active_at)
       VALUES ($1, sparrow_uuidv7(), $2, $3, now())`,
      [accountId, rows[0].id, { nodes: [{ id: 'n1', typeId, config: {} }] }],
    );
  };
  const queued = async (accountId: string) =>
    (
      await svc.db.query<{ kind: string; contact_id: string; text: string | null }>(
        'SELECT kind, contact_id, text FROM workflow_trigger_queue WHERE account_id = $1 ORDER BY kind, contact_id',
        [accountId],
      )
    ).rows;

  before(async () => {
    svc = await startTestService();
    withFlow = await svc.newAccount();
    without = await svc.newAccount();
    keyword = await svc.newAccount();
    await activate(withFlow.accountId, 'trigger.contact-created');
    await activate(keyword.accountId, 'trigger.keyword');
    // A workflow that is not active triggers nothing.
    await svc.db.query(
      `WITH w AS (INSERT INTO workflows (account_id, id, name) VALUES ($1, sparrow_uuidv7(), 'old') RETURNING id)
       INSERT INTO workflow_versions (account_id, id, workflow_id, definition)
       SELECT $1, sparrow_uuidv7(), w.id, '{"nodes":[{"id":"n1","typeId":"trigger.contact-created","config":{}}]}' FROM w`,
      [without.accountId],
    );
  });
  after(() => svc.close());

  it('one statement of many accounts and kinds queues exactly the events with a trigger to meet', async () => {
    const ids = {
      a1: '01a20f60-0000-7000-8000-000000000001',
      a2: '01a20f60-0000-7000-8000-000000000002',
      b1: '01a20f60-0000-7000-8000-000000000003',
      k1: '01a20f60-0000-7000-8000-000000000004',
      k2: '01a20f60-0000-7000-8000-000000000005',
    };
    const rows: [string, string, object][] = [
      [withFlow.accountId, 'contact-created', { id: ids.a1 }],
      [withFlow.accountId, 'contact-created', { id: ids.a2 }],
      [withFlow.accountId, 'contact-created', { id: 'not-an-id' }],
      [withFlow.accountId, 'contact-updated', { id: ids.a1 }],
      [withFlow.accountId, 'message-received', { contact: { id: ids.a1 }, message: { message: 'hi' } }],
      [without.accountId, 'contact-created', { id: ids.b1 }],
      [without.accountId, 'contact-opt-out', { contact: { id: ids.b1 } }],
      [keyword.accountId, 'contact-created', { id: ids.k1 }],
      [keyword.accountId, 'message-received', { contact: { id: ids.k2 }, message: { message: 'JOIN now' } }],
      [keyword.accountId, 'message-sent', { contact: { id: ids.k2 } }],
    ];
    await svc.db.query(
      `INSERT INTO events (id, account_id, type, data)
       SELECT sparrow_uuidv7(), a, t, d FROM unnest($1::uuid[], $2::text[], $3::jsonb[]) AS x(a, t, d)`,
      [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => JSON.stringify(r[2]))],
    );
    assert.deepEqual(await queued(withFlow.accountId), [
      { kind: 'contact-created', contact_id: ids.a1, text: null },
      { kind: 'contact-created', contact_id: ids.a2, text: null },
    ]);
    assert.deepEqual(await queued(without.accountId), []);
    assert.deepEqual(await queued(keyword.accountId), [
      { kind: 'message-received', contact_id: ids.k2, text: 'JOIN now' },
    ]);
  });

  it('an inbound text or an opt-out of a contact in a live run is queued without any trigger', async () => {
    const { rows: c } = await svc.db.query<{ id: string }>(
      `INSERT INTO contacts (account_id, id, mobile_number, mobile_country, mobile_valid)
       VALUES ($1, sparrow_uuidv7(), '+12025550199', 'US', true) RETURNING id`,
      [without.accountId],
    );
    const contactId = c[0].id;
    const { rows: v } = await svc.db.query<{ id: string; workflow_id: string }>(
      'SELECT id, workflow_id FROM workflow_versions WHERE account_id = $1',
      [without.accountId],
    );
    await svc.db.query(
      `INSERT INTO workflow_runs (account_id, id, workflow_id, version_id, contact_id, status, node_id, trigger)
       VALUES ($1, sparrow_uuidv7(), $2, $3, $4, 'waiting', 'n1', 'trigger.contact-created')`,
      [without.accountId, v[0].workflow_id, v[0].id, contactId],
    );
    await svc.db.query(
      `INSERT INTO events (id, account_id, type, data) VALUES
         (sparrow_uuidv7(), $1, 'message-received', $2), (sparrow_uuidv7(), $1, 'contact-opt-out', $3),
         (sparrow_uuidv7(), $1, 'contact-created', $4)`,
      [
        without.accountId,
        { contact: { id: contactId }, message: { message: 'stop it' } },
        { contact: { id: contactId } },
        { id: contactId },
      ],
    );
    assert.deepEqual(await queued(without.accountId), [
      { kind: 'contact-opt-out', contact_id: contactId, text: null },
      { kind: 'message-received', contact_id: contactId, text: 'stop it' },
    ]);
  });
});
