import type { Queryable } from '../../db/client.ts';
import { type DripRow, findDrip } from '../../db/queries/drips.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Drip, presentDrips } from './present-drip.ts';

/** The account's drip row (optionally locked); none (or another account's, or a non-id) is 404 DRIP-001. */
export async function requireDrip(
  db: Queryable,
  accountId: string,
  dripId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<DripRow> {
  const row = isId(dripId) ? await findDrip(db, accountId, dripId, opts) : undefined;
  return row ?? fail('DRIP-001');
}

/** One of the account's drip campaigns with its steps and stats. */
export async function getDrip(db: Queryable, accountId: string, dripId: string): Promise<Drip> {
  return (await presentDrips(db, accountId, [await requireDrip(db, accountId, dripId)]))[0];
}
