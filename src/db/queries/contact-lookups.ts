/**
 * Contacts looked up one by one, by key, from a list or per row of another table: written so that
 * the plan cannot turn them into a scan of the account's contacts. With statistics taken before an
 * account's contacts grew (a new account importing or sending to thousands of new numbers within
 * autovacuum's minute), the planner believes the account has a few dozen contacts and reads all of
 * them, through contacts_created, for every statement: measured at 10–130 ms a dispatch claim of
 * 33 messages once the account had 20,000 contacts. A scalar subquery or a LATERAL with LIMIT is
 * planned per row, where the primary key (or contacts_mobile) is the only sensible path.
 */

/** SQL: whether the contact of row `alias` (its account_id, contact_id) opted out or is blocked; false without one. */
export const CONTACT_STOPPED = (alias: string) =>
  `coalesce((SELECT c.opted_out_at IS NOT NULL OR c.blocked_at IS NOT NULL FROM contacts c
             WHERE c.account_id = ${alias}.account_id AND c.id = ${alias}.contact_id), false)`;

/**
 * SQL: the contacts of account `account` (a parameter) with the ids in array parameter `ids`,
 * each once (duplicates named once), as rows of `contacts` aliased `alias`.
 */
export const CONTACTS_BY_IDS = (account: string, ids: string, alias: string) =>
  `(SELECT DISTINCT k.id FROM unnest(${ids}::uuid[]) AS k(id)) ${alias}_k
   CROSS JOIN LATERAL (SELECT * FROM contacts c0 WHERE c0.account_id = ${account} AND c0.id = ${alias}_k.id LIMIT 1) ${alias}`;
