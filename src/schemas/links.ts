import { Type } from '@sinclair/typebox';
import { AuditStamp, IdParam, NamedPageQuery, PageQuery } from './common.ts';

/** A tracked link. */
export const Link = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String({ description: 'Where the short URL redirects (and nowhere else).' }),
  slug: Type.String(),
  shortUrl: Type.String({ description: '`{EXTERNALS_URL}/l/{slug}`: the direct source.' }),
  clicks: Type.Integer({ description: 'Clicks over all sources.' }),
  created: AuditStamp,
  updated: AuditStamp,
});

/** Where a link was used: `direct` (its own short URL), or a send job (`job`) / campaign run (`campaign`). */
export const LinkSource = Type.Object({
  id: Type.String(),
  type: Type.Union([Type.Literal('direct'), Type.Literal('job'), Type.Literal('campaign')]),
  key: Type.Optional(
    Type.String({ description: 'The short URL suffix that attributes clicks to this source.' }),
  ),
  shortUrl: Type.String(),
  job: Type.Optional(Type.Object({ id: Type.String() })),
  campaign: Type.Optional(Type.Object({ id: Type.String() })),
  clicks: Type.Integer(),
  created: AuditStamp,
});

/** The Link source statistic: clicks of one UTC day. */
export const LinkSourceStatistic = Type.Object({
  date: Type.String({ format: 'date-time', description: 'The UTC day (midnight).' }),
  value: Type.Integer({ description: 'Clicks that day.' }),
});

export const CreateLinkBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http or https URL.' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Default: the URL.' })),
});

export const LinkListQuery = NamedPageQuery;
export const LinkParams = IdParam('accountId', 'linkId');
export const LinkSourceParams = IdParam('accountId', 'linkId', 'sourceId');

const DateParam = (what: string) =>
  Type.Optional(
    Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:?\\d{2}))?$',
      maxLength: 40,
      description: `${what} (ISO 8601 date; a date-time counts as its UTC day).`,
    }),
  );

export const StatsQuery = Type.Object({
  offset: PageQuery.offset,
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'Maximum days (1..100).' }),
  start: DateParam('First day (default: the source’s first day, at most 366 days back)'),
  end: DateParam('Last day (default: today)'),
});
