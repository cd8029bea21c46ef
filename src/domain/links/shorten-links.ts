import type { Queryable } from '../../db/client.ts';
import { findLinkByUrl } from '../../db/queries/links.ts';
import { findOrInsertJobSource } from '../../db/queries/links-sources.ts';
import { newId } from '../../util/ids.ts';
import { SYSTEM } from '../actor.ts';
import { insertNewLink } from './create-link.ts';
import { checkLinkUrl, KEY_LENGTH, randomKey } from './link-url.ts';
import { shortUrl } from './present-link.ts';

/** Where shortened links are used: a send job (of a campaign, when given), or `direct`. */
export type LinkUse = { jobId: string; campaignId?: string | null } | 'direct';

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'{}|\\^`]+/gi;
const TRAILING = /[.,;:!?'")\]]$/;
const SHORTENER = { ...SYSTEM, subSource: 'shorten-links' };

/** A URL found in text without the punctuation that ends the sentence around it. */
function trimUrl(url: string): string {
  let u = url;
  while (TRAILING.test(u)) {
    // Keep a closing parenthesis that closes one inside the URL (Wikipedia-style links).
    if (u.endsWith(')') && u.split('(').length > u.split(')').length - 1) break;
    u = u.slice(0, -1);
  }
  return u;
}

async function sourceKeyFor(db: Queryable, accountId: string, linkId: string, use: LinkUse): Promise<string> {
  if (use === 'direct') return '';
  for (let attempt = 0; attempt < 10; attempt++) {
    const s = await findOrInsertJobSource(db, accountId, {
      linkId,
      id: newId(),
      key: randomKey(KEY_LENGTH),
      jobId: use.jobId,
      campaignId: use.campaignId ?? null,
    });
    if (s) return s.key;
  }
  throw new Error('could not draw a free link source key');
}

/**
 * Replaces every http(s) URL in `text` with a tracked short link for `use`: the account's link to
 * that URL (created when it has none) and, for a send job, the job's own source key, so that
 * clicks are counted per job. URLs followed by a merge field (personalised), invalid ones and our
 * own short URLs are left as they are. Short links are built on `externalsUrl` (the service's
 * EXTERNALS_URL). Run it in the transaction of the send it is for.
 */
export async function shortenLinks(
  db: Queryable,
  accountId: string,
  text: string,
  use: LinkUse,
  externalsUrl: string,
): Promise<string> {
  const own = `${externalsUrl}/l/`;
  const replacements = new Map<string, string>();
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const at = m.index ?? 0;
    const found = trimUrl(m[0]);
    const next = text[at + found.length];
    if (next === '{' || found.startsWith(own)) continue;
    let replacement = replacements.get(found);
    if (replacement === undefined) {
      let url: string;
      try {
        url = checkLinkUrl(found);
      } catch {
        continue;
      }
      const link =
        (await findLinkByUrl(db, accountId, url)) ??
        (await insertNewLink(db, accountId, { url, name: url.slice(0, 200) }, SHORTENER));
      replacement = shortUrl(externalsUrl, link.slug, await sourceKeyFor(db, accountId, link.id, use));
      replacements.set(found, replacement);
    }
    out += text.slice(last, at) + replacement;
    last = at + found.length;
  }
  return out + text.slice(last);
}
