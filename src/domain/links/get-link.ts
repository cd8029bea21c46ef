import type { Queryable } from '../../db/client.ts';
import { findLink, type LinkRow } from '../../db/queries/links.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Link, presentLink } from './present-link.ts';

/** The account's link row; none (or another account's, or a non-id) is 404 LINK-001. */
export async function requireLink(db: Queryable, accountId: string, linkId: string): Promise<LinkRow> {
  const row = isId(linkId) ? await findLink(db, accountId, linkId) : undefined;
  return row ?? fail('LINK-001');
}

/** One of the account's links, with its total clicks and short URL. */
export async function getLink(
  db: Queryable,
  accountId: string,
  linkId: string,
  externalsUrl: string,
): Promise<Link> {
  return presentLink(await requireLink(db, accountId, linkId), externalsUrl);
}
