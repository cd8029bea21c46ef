import type { Queryable } from '../../db/client.ts';
import { listLinks as queryLinks } from '../../db/queries/links.ts';
import type { Page } from '../page.ts';
import { type Link, presentLink } from './present-link.ts';

/** A page of the account's links, newest first (optionally by partial name or URL). */
export async function listLinks(
  db: Queryable,
  accountId: string,
  filter: { name?: string },
  page: { offset: number; limit: number },
  externalsUrl: string,
): Promise<Page<Link>> {
  const { rows, total } = await queryLinks(db, accountId, filter, page);
  return { items: rows.map((r) => presentLink(r, externalsUrl)), totalCount: total, ...page };
}
