import type { Queryable } from '../../db/client.ts';
import { insertLink } from '../../db/queries/links.ts';
import { newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { getLink } from './get-link.ts';
import { checkLinkUrl, randomKey, SLUG_LENGTH } from './link-url.ts';
import type { Link } from './present-link.ts';

/** Inserts a link (and its direct source) under a fresh random slug; answers its id and slug. */
export async function insertNewLink(
  db: Queryable,
  accountId: string,
  l: { url: string; name: string },
  by: Actor,
): Promise<{ id: string; slug: string }> {
  // A slug collision (≈2^-59 per draw) is retried with another draw.
  for (let attempt = 0; attempt < 5; attempt++) {
    const id = newId();
    const slug = randomKey(SLUG_LENGTH);
    if (
      await insertLink(db, accountId, { id, slug, url: l.url, name: l.name, directSourceId: newId(), by })
    ) {
      return { id, slug };
    }
  }
  throw new Error('could not draw a free link slug');
}

/**
 * Creates a tracked link to `url` (absolute http/https; LINK-003 otherwise) with an unguessable
 * short URL `{EXTERNALS_URL}/l/{slug}`. `name` defaults to the URL.
 */
export async function createLink(
  db: Queryable,
  accountId: string,
  input: { url: string; name?: string },
  by: Actor,
  externalsUrl: string,
): Promise<Link> {
  const url = checkLinkUrl(input.url);
  const name = input.name?.trim() || url.slice(0, 200);
  const { id } = await insertNewLink(db, accountId, { url, name }, by);
  return getLink(db, accountId, id, externalsUrl);
}
