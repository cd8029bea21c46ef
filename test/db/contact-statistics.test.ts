import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * A send to thousands of new numbers leaves the planner knowing how many contacts the account has
 * (src/db/statistics.ts): without it, statistics taken before the account had any say it has a
 * handful until autovacuum's next look (10 % of the table changed, at most once a minute), and
 * the dispatcher's claims read all of the account's contacts for every batch. Autovacuum is
 * turned off on contacts here, so only the service itself can bring the statistics up to date.
 */
describe('contact statistics after a send to new numbers', () => {
  let svc: TestService;
  let big: TestAccount;
  let fresh: TestAccount;

  before(async () => {
    svc = await startTestService();
    big = await svc.newAccount();
    fresh = await svc.newAccount({ balance: 1000 });
    await svc.db.query('ALTER TABLE contacts SET (autovacuum_enabled = false)');
    await svc.db.query(
      `INSERT INTO contacts (account_id, id, mobile_number, mobile_country, mobile_valid)
       SELECT $1, sparrow_uuidv7(), '+1202' || (2000000 + g), 'US', true FROM generate_series(1, 5000) g`,
      [big.accountId],
    );
    await svc.db.query('ANALYZE contacts');
  });
  after(async () => {
    await svc.db.query('ALTER TABLE contacts RESET (autovacuum_enabled)');
    await svc.close();
  });

  /** The planner's estimate of the fresh account's contacts. */
  const estimate = async () => {
    const { rows } = await svc.db.query({
      text: 'EXPLAIN (FORMAT JSON) SELECT id FROM contacts WHERE account_id = $1',
      values: [fresh.accountId],
    });
    return (rows[0]['QUERY PLAN'] as { Plan: { 'Plan Rows': number } }[])[0].Plan['Plan Rows'];
  };

  const analyzedAt = async () => {
    const { rows } = await svc.db.query<{ at: Date | null }>(
      `SELECT greatest(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relname = 'contacts'`,
    );
    return rows[0]?.at?.getTime() ?? 0;
  };

  it('before: the planner believes the new account has almost no contacts', async () => {
    assert.ok((await estimate()) < 100);
  });

  it('after a send naming 3,000 new mobiles, contacts are analyzed and the account is known', async () => {
    const before = await analyzedAt();
    const contacts = Array.from({ length: 3000 }, (_, i) => ({ mobile: { number: `+1303${5000000 + i}` } }));
    const res = await call(svc.api, 'POST', `/v1/accounts/${fresh.accountId}/messages`, {
      auth: fresh.auth,
      json: { contacts, template: 'Hello' },
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    // An analysis after the send's commit (one that ran just before it, such as autovacuum's, does
    // not count: the estimate tells them apart).
    await eventually(
      async () => (await analyzedAt()) > before && (await estimate()) >= 1500,
      30_000,
      100,
    ).catch(() => {});
    const rows = await estimate();
    assert.ok(rows >= 1500, `the planner now estimates ${rows} of the account's 3,000 contacts`);
  });

  it('a send naming a few new mobiles does not analyze (below the growth that calls for it)', async () => {
    const before = await analyzedAt();
    const res = await call(svc.api, 'POST', `/v1/accounts/${fresh.accountId}/messages`, {
      auth: fresh.auth,
      json: { contacts: [{ mobile: { number: '+13039000001' } }], template: 'Hello' },
    });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    // An ANALYZE, were one started, would run after 0.5 s: give it 2 s to show.
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(await analyzedAt(), before);
  });
});
