import type { Static } from '@sinclair/typebox';
import type { LinkRow } from '../../db/queries/links.ts';
import type { LinkSourceRow } from '../../db/queries/links-sources.ts';
import type { Link as LinkSchema, LinkSource as LinkSourceSchema } from '../../schemas/links.ts';
import { omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** The short URL of a link (direct) or of one of its sources. */
export function shortUrl(externalsUrl: string, slug: string, key = ''): string {
  return `${externalsUrl}/l/${slug}${key ? `/${key}` : ''}`;
}

/** A tracked link as the API shows it. */
export function presentLink(l: LinkRow, externalsUrl: string): Static<typeof LinkSchema> {
  return {
    id: l.id,
    name: l.name,
    url: l.url,
    slug: l.slug,
    shortUrl: shortUrl(externalsUrl, l.slug),
    clicks: l.clicks,
    created: stamp(l.created_at, l.created_by),
    updated: stamp(l.updated_at, l.updated_by),
  };
}

/** A link as the API shows it. */
export type Link = ReturnType<typeof presentLink>;

/** A link source as the API shows it: where the link was used, its short URL and its clicks. */
export function presentLinkSource(s: LinkSourceRow, slug: string, externalsUrl: string) {
  return omitNullsAs<Static<typeof LinkSourceSchema>>({
    id: s.id,
    type: s.type,
    key: s.key === '' ? null : s.key,
    shortUrl: shortUrl(externalsUrl, slug, s.key),
    job: s.job_id ? { id: s.job_id } : null,
    campaign: s.campaign_id ? { id: s.campaign_id } : null,
    clicks: s.clicks,
    created: stamp(s.created_at, {}),
  });
}

/** A link source as the API shows it. */
export type LinkSource = ReturnType<typeof presentLinkSource>;
