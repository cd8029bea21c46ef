import type { Queryable } from '../../db/client.ts';
import { findLinkSource, sourceDailyClicks } from '../../db/queries/links-sources.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { dayRange } from '../forms/date-range.ts';
import type { Page } from '../page.ts';
import { requireLink } from './get-link.ts';

/** A Link source statistic: the clicks of one UTC day. */
export interface LinkSourceStatistic {
  date: string;
  value: number;
}

/**
 * Clicks per UTC day of one source of a link (`direct` names the direct source), every day from
 * `start` to `end` listed (default: from the source's first day, at most 366 days, to today),
 * oldest first, paged. Errors: LINK-001, LINK-002, VAL-001 bad range.
 */
export async function linkSourceStats(
  db: Queryable,
  accountId: string,
  linkId: string,
  sourceId: string,
  query: { start?: string; end?: string },
  page: { offset: number; limit: number },
): Promise<Page<LinkSourceStatistic>> {
  const link = await requireLink(db, accountId, linkId);
  const source =
    sourceId === 'direct' || isId(sourceId)
      ? await findLinkSource(db, accountId, link.id, sourceId)
      : undefined;
  if (!source) fail('LINK-002');
  const range = dayRange(query.start, query.end, new Date(source.created_at));
  const days = await sourceDailyClicks(db, accountId, source.id, range.start, range.end);
  return {
    items: days
      .slice(page.offset, page.offset + page.limit)
      .map((d) => ({ date: `${d.day}T00:00:00.000Z`, value: d.clicks })),
    totalCount: days.length,
    ...page,
  };
}
