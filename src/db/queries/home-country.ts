import type { Queryable } from '../client.ts';

/**
 * The country an account's national numbers are read in (messaging/phone.ts, readingCountry): the
 * country of the first active number (by id, the order every send picks senders in) of its default
 * group, or of any of its numbers when that group uses the shared pool. Undefined when it has none.
 */
export async function accountHomeCountry(db: Queryable, accountId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ country: string }>({
    name: 'account-home-country',
    text: `SELECT p.country FROM groups g
             JOIN phone_numbers p ON p.account_id = g.account_id AND p.status = 'active'
            WHERE g.account_id = $1 AND g.is_default
              AND (g.use_shared_pool OR EXISTS (
                    SELECT 1 FROM group_numbers gn
                     WHERE gn.account_id = g.account_id AND gn.group_id = g.id AND gn.phone_number_id = p.id))
            ORDER BY p.id LIMIT 1`,
    values: [accountId],
  });
  return rows[0]?.country;
}
