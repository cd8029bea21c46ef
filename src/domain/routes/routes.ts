import type { Queryable } from '../../db/client.ts';
import {
  deleteRoute as deleteRouteRow,
  getRoute as getRouteRow,
  insertRoute,
  listRoutes as listRouteRows,
  updateRoute as updateRouteRow,
} from '../../db/queries/routes.ts';
import { fail } from '../../errors.ts';
import { isId, newId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { presentRoute } from './present.ts';
import { type RouteInput, routeFields } from './route-input.ts';

/**
 * Routes of an account, or of the operator's default table when `accountId` is null (the CLI's
 * `sparrow routes`). Unknown id → ROUTE-001; a destination that already has a route → ROUTE-002;
 * an invalid route → ROUTE-003.
 */

export async function createRoute(db: Queryable, accountId: string | null, input: RouteInput, by: Actor) {
  const fields = routeFields(input);
  const row = await insertRoute(db, accountId, { ...fields, id: newId(), by });
  if (!row) fail('ROUTE-002');
  return presentRoute(row);
}

export async function replaceRoute(
  db: Queryable,
  accountId: string | null,
  id: string,
  input: RouteInput,
  by: Actor,
) {
  if (!isId(id)) fail('ROUTE-001');
  const fields = routeFields(input);
  const row = await updateRouteRow(db, accountId, id, { ...fields, by });
  if (row === 'taken') fail('ROUTE-002');
  if (!row) fail('ROUTE-001');
  return presentRoute(row);
}

export async function listRoutes(db: Queryable, accountId: string | null, offset: number, limit: number) {
  const { rows, total } = await listRouteRows(db, accountId, offset, limit);
  return { items: rows.map(presentRoute), totalCount: total, offset, limit };
}

export async function getRoute(db: Queryable, accountId: string | null, id: string) {
  const row = isId(id) ? await getRouteRow(db, accountId, id) : undefined;
  if (!row) fail('ROUTE-001');
  return presentRoute(row);
}

export async function deleteRoute(db: Queryable, accountId: string | null, id: string): Promise<void> {
  if (!isId(id) || !(await deleteRouteRow(db, accountId, id))) fail('ROUTE-001');
}
