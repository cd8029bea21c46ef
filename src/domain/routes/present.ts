import type { RouteRow } from '../../db/queries/routes.ts';
import { omitNulls } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** A route as the API shows it (unset `prefix`, `country` and `description` are left out). */
export function presentRoute(row: RouteRow) {
  return omitNulls({
    id: row.id,
    type: 'route' as const,
    prefix: row.prefix,
    country: row.country,
    providers: [...row.providers].sort((a, b) => a.priority - b.priority),
    description: row.description,
    created: stamp(row.created_at, row.created_by),
    updated: stamp(row.updated_at, row.updated_by),
  });
}
