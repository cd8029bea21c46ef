import type { Queryable } from '../../db/client.ts';
import { listAutoresponders as queryAutoresponders } from '../../db/queries/autoresponders.ts';
import type { Page } from '../page.ts';
import { type Autoresponder, presentAutoresponder } from './present-autoresponder.ts';

/** A page of the account's autoresponders, newest first, optionally of one group and by `active`. */
export async function listAutoresponders(
  db: Queryable,
  accountId: string,
  filter: { groupId?: string; active?: boolean },
  page: { offset: number; limit: number },
): Promise<Page<Autoresponder>> {
  const groupId = filter.groupId?.toLowerCase();
  const { rows, total } = await queryAutoresponders(db, accountId, { ...filter, groupId }, page);
  return { items: rows.map(presentAutoresponder), totalCount: total, ...page };
}
