import type { Queryable } from '../../db/client.ts';
import { listLinkSources as querySources } from '../../db/queries/links-sources.ts';
import type { Page } from '../page.ts';
import { requireLink } from './get-link.ts';
import { type LinkSource, presentLinkSource } from './present-link.ts';

/** A page of the places a link was used (direct first, then send jobs in order), with their clicks. */
export async function listLinkSources(
  db: Queryable,
  accountId: string,
  linkId: string,
  page: { offset: number; limit: number },
  externalsUrl: string,
): Promise<Page<LinkSource>> {
  const link = await requireLink(db, accountId, linkId);
  const { rows, total } = await querySources(db, accountId, link.id, page);
  return {
    items: rows.map((r) => presentLinkSource(r, link.slug, externalsUrl)),
    totalCount: total,
    ...page,
  };
}
