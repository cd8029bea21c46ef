import type { Db } from './client.ts';

/**
 * Keeps the planner's statistics of `contacts` current while an account's contacts grow fast.
 *
 * Autovacuum analyzes a table after 10 % of it changed, at most once a minute: an account that
 * sends to (or imports) thousands of new numbers is, for the planner, still the handful of contacts
 * it had at the last ANALYZE, long after it has tens of thousands (in a table of millions, for as
 * long as it takes 10 % of the table to change). Plans then read all of the account's contacts for
 * each statement that looks a few of them up: measured on bench:peer's SMPP race, a dispatch claim of
 * 33 messages took 10–130 ms once the account had 20,000 contacts (a bitmap scan of all of them, 61
 * times over), where it takes well under a millisecond.
 *
 * So whoever creates contacts reports how many, and once GROWTH have been created by this process
 * since its last ANALYZE of them, `ANALYZE contacts` runs on its own connection (after DELAY_MS, so
 * that the transaction that created them has committed; never more often than every INTERVAL_MS).
 * ANALYZE reads a fixed sample (30,000 rows at the default statistics target), so it costs the same
 * on a big table; only the columns those lookups plan on (ANALYZED) are analyzed, which halves it
 * (100 of 215 ms on 60,000 contacts: the sample is read either way, but the statistics of the
 * jsonb columns are not computed), and the row count comes with it; autovacuum's ANALYZE still
 * covers every column. A failure is reported, never thrown (a role that does not own the table
 * gets a warning from PostgreSQL and the statistics stay as they are).
 */
const GROWTH = 2000;
const DELAY_MS = 500;
const INTERVAL_MS = 10_000;
/** The columns the planner needs current while an account grows: its contacts, by id or by number. */
const ANALYZED = 'account_id, id, mobile_number, created_at';

interface State {
  grown: number;
  last: number;
  pending: boolean;
}

const states = new WeakMap<Db, State>();

/** Counts `created` new contacts; analyzes `contacts` once enough have been created (see above). */
export function contactsCreated(db: Db, created: number, log: (msg: string) => void = () => {}): void {
  if (created <= 0) return;
  let s = states.get(db);
  if (!s) {
    s = { grown: 0, last: 0, pending: false };
    states.set(db, s);
  }
  s.grown += created;
  if (s.grown < GROWTH || s.pending) return;
  s.pending = true;
  const state = s;
  const timer = setTimeout(
    async () => {
      state.grown = 0;
      try {
        // SKIP_LOCKED: behind a VACUUM of contacts (autovacuum's, a migration's) it is skipped
        // rather than holding a connection of the pool until the VACUUM ends.
        await db.query(`ANALYZE (SKIP_LOCKED) contacts (${ANALYZED})`);
      } catch (err) {
        log(`statistics: ANALYZE contacts failed: ${(err as Error).message}`);
      } finally {
        state.last = Date.now();
        state.pending = false;
      }
    },
    Math.max(DELAY_MS, state.last + INTERVAL_MS - Date.now()),
  );
  timer.unref();
}
