import type { Db } from '../../db/client.ts';
import { findLinkBySlug } from '../../db/queries/links.ts';
import { recordClick } from '../../db/queries/links-sources.ts';
import { isSlug, isSourceKey } from './link-url.ts';

const FOREIGN_KEY_VIOLATION = '23503';

/**
 * Follows a short URL: answers the link's stored URL (the only place it redirects to) and counts a
 * click for today on the source the key names (the direct source when there is no key or it
 * names none). Unknown or malformed slug → undefined (404).
 */
export async function followLink(db: Db, slug: string, sourceKey?: string): Promise<string | undefined> {
  if (!isSlug(slug)) return undefined;
  const link = await findLinkBySlug(db, slug);
  if (!link) return undefined;
  const key = sourceKey && isSourceKey(sourceKey) ? sourceKey : '';
  try {
    await recordClick(db, link.account_id, link.id, key);
  } catch (err) {
    // The link was deleted between the lookup and the count: the click has nothing left to count on.
    if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw err;
  }
  return link.url;
}
