import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../src/db/client.ts';
import { jobMessagesAfter } from '../../src/db/queries/dispatch-ranges.ts';
import { insertJobMessages, type JobMessagesSpec } from '../../src/db/queries/message-bulk.ts';
import { lockDispatchCandidates } from '../../src/db/queries/message-dispatch.ts';
import { insertSendJob } from '../../src/db/queries/send-jobs.ts';
import { newId } from '../../src/util/ids.ts';
import { startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * The dispatcher's claims and the sends look contacts up by key, whatever the statistics say
 * (src/db/queries/contact-lookups.ts). Here the statistics are taken while the account has one
 * contact, then it gets 5,000 more (as a new account sending to new numbers does within
 * autovacuum's minute): each statement, as the code issues it, is planned (EXPLAIN, nothing run)
 * on that table and must not read the account's contacts through contacts_created or a scan.
 */
describe('contact lookups under stale statistics', () => {
  let svc: TestService;
  let big: TestAccount;
  let fresh: TestAccount;
  let freshIds: string[];
  let pool: { id: string; number: string }[];

  before(async () => {
    svc = await startTestService();
    big = await svc.newAccount();
    fresh = await svc.newAccount();
    await svc.db.query('ALTER TABLE contacts SET (autovacuum_enabled = false)');
    const add = (accountId: string, from: number, count: number) =>
      svc.db.query(
        `INSERT INTO contacts (account_id, id, mobile_number, mobile_country, mobile_valid)
         SELECT $1, sparrow_uuidv7(), '+1202' || ($2::int + g), 'US', true FROM generate_series(1, $3::int) g`,
        [accountId, from, count],
      );
    await add(big.accountId, 2_000_000, 5000);
    await svc.db.query('ANALYZE contacts; ANALYZE messages');
    await add(fresh.accountId, 4_000_000, 5000);
    const { rows } = await svc.db.query<{ id: string; mobile_number: string }>(
      'SELECT id, mobile_number FROM contacts WHERE account_id = $1 ORDER BY id DESC LIMIT 40',
      [fresh.accountId],
    );
    freshIds = rows.map((r) => r.id);
    const numbers = await svc.db.query<{ id: string; number: string }>(
      'SELECT id, number FROM phone_numbers WHERE account_id = $1',
      [fresh.accountId],
    );
    pool = numbers.rows;
  });
  after(async () => {
    await svc.db.query('ALTER TABLE contacts RESET (autovacuum_enabled)');
    await svc.close();
  });

  /** A send to the 40 newest contacts of the fresh account. */
  function spec(jobId: string, mode: 'named contacts' | 'one row a submission'): JobMessagesSpec {
    return {
      jobId,
      campaignId: null,
      recipients: { contactIds: mode === 'named contacts' ? freshIds : [], conversationIds: [] },
      ...(mode === 'one row a submission'
        ? {
            rows: {
              ids: freshIds.map(() => newId()),
              contactIds: freshIds,
              bodies: freshIds.map(() => 'Hi'),
            },
          }
        : {}),
      pool,
      parts: [{ kind: 'text', text: 'Hi' }],
      fixed: { body: 'Hi', encoding: 'GSM-7', segments: 1 },
      media: [],
      prices: { US: 0.01 },
      by: { id: 'test' },
    };
  }

  /** The statements `run` issues that read contacts, captured instead of run. */
  async function statements(run: (db: Queryable) => Promise<unknown>) {
    const seen: { text: string; values: unknown[] }[] = [];
    const capture = {
      query: async (q: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
        const text = typeof q === 'string' ? q : q.text;
        seen.push({ text, values: (typeof q === 'string' ? values : (q.values ?? values)) ?? [] });
        return { rows: [], rowCount: 0 };
      },
    } as unknown as Queryable;
    await run(capture).catch(() => {});
    return seen.filter((s) => /\bcontacts\b/.test(s.text) && !/^\s*SET\b/i.test(s.text));
  }

  /** The plan's nodes that read contacts other than by key (contacts_pkey / contacts_mobile). */
  async function accountScans(s: { text: string; values: unknown[] }, dispatchSettings: boolean) {
    const client = await svc.db.connect();
    try {
      await client.query('BEGIN');
      if (dispatchSettings)
        await client.query(
          'SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off',
        );
      const { rows } = await client.query({ text: `EXPLAIN (FORMAT JSON) ${s.text}`, values: s.values });
      const bad: string[] = [];
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'contacts') {
          const index = node['Index Name'] as string | undefined;
          if (!index || !['contacts_pkey', 'contacts_mobile'].includes(index))
            bad.push(`${node['Node Type']} ${index ?? ''}`.trim());
        }
        if (node['Node Type'] === 'Bitmap Index Scan' && node['Index Name'] === 'contacts_created')
          bad.push('Bitmap Index Scan contacts_created');
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      const plan = rows[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[];
      walk(plan[0].Plan);
      return bad;
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  it('the statistics are stale: the planner believes the account has a handful of contacts', async () => {
    const { rows } = await svc.db.query({
      text: 'EXPLAIN (FORMAT JSON) SELECT id FROM contacts WHERE account_id = $1',
      values: [fresh.accountId],
    });
    const estimate = (rows[0]['QUERY PLAN'] as { Plan: { 'Plan Rows': number } }[])[0].Plan['Plan Rows'];
    assert.ok(estimate < 100, `estimated ${estimate} rows of 5,000`);
  });

  it('a range claim checks each message’s contact by key', async () => {
    // A job of 40 messages to the new contacts, queued after the statistics were taken.
    const jobId = newId();
    await insertSendJob(svc.db, fresh.accountId, {
      id: jobId,
      campaignId: null,
      template: 'Hi',
      by: { id: 'test' },
    });
    await insertJobMessages(svc.db, fresh.accountId, spec(jobId, 'one row a submission'));
    const [s] = await statements((db) =>
      jobMessagesAfter(
        db,
        { account_id: fresh.accountId, id: jobId, not_before: '-infinity', cursor: null },
        2001,
      ),
    );
    assert.ok(s, 'the claim reads contacts');
    assert.deepEqual(await accountScans(s, true), []);
  });

  it('a claim of one-off messages checks each contact by key', async () => {
    const [s] = await statements((db) => lockDispatchCandidates(db, 2000, []));
    assert.ok(s, 'the claim reads contacts');
    assert.deepEqual(await accountScans(s, true), []);
  });

  for (const mode of ['named contacts', 'one row a submission'] as const) {
    it(`a send to ${mode} reads each contact by key`, async () => {
      const found = await statements((db) => insertJobMessages(db, fresh.accountId, spec(newId(), mode)));
      assert.ok(found.length > 0, 'the send reads contacts');
      for (const s of found) assert.deepEqual(await accountScans(s, false), []);
    });
  }
});
