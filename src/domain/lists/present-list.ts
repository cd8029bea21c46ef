import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import { type ListRow, listSizes } from '../../db/queries/lists.ts';
import type { List as ListSchema } from '../../schemas/lists.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** The List shape of the API, with its member count (unset fields left out, never null). */
export function presentList(l: ListRow, size: number) {
  return omitNullsAs<Static<typeof ListSchema>>({
    id: l.id,
    name: l.name,
    source: l.source,
    keyword: l.keyword,
    doubleOptIn: omitNulls({
      enabled: l.double_opt_in?.enabled === true,
      prompt: l.double_opt_in?.prompt ?? null,
    }),
    filter: l.filter,
    optInConfirmation: l.opt_in_confirmation,
    size,
    created: stamp(l.created_at, l.created_by),
    updated: stamp(l.updated_at, l.updated_by),
  });
}

/** The List shape's type. */
export type List = ReturnType<typeof presentList>;

/** Lists in the List shape with their sizes. */
export async function presentLists(db: Queryable, accountId: string, rows: ListRow[]): Promise<List[]> {
  const sizes = await listSizes(db, accountId, rows);
  return rows.map((l) => presentList(l, sizes.get(l.id) ?? 0));
}
