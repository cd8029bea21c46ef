import type { Page } from '../page.ts';

/** The sort orders of a built-in catalog (`-` descending): by name, or by when an entry was added. */
export const CATALOG_SORTS = ['name', '-name', 'created', '-created'] as const;

/** A sort order of a built-in catalog. */
export type CatalogSort = (typeof CATALOG_SORTS)[number];

/** What every built-in catalog entry (form templates, workflow templates) carries. */
export interface CatalogEntry {
  name: string;
  description: string;
  category: string;
  /** When the entry was added (ISO date). */
  added: string;
}

/**
 * A page of a built-in catalog: `q` matches name, description or category, `name` the name only
 * (both partial, case-insensitive), `category` exactly (case-insensitive); sorted by name (default)
 * or by when entries were added. The one search of form templates and workflow templates.
 */
export function searchCatalog<T extends CatalogEntry, U>(
  entries: readonly T[],
  query: { q?: string; name?: string; category?: string; sort?: CatalogSort },
  page: { offset: number; limit: number },
  present: (entry: T) => U,
): Page<U> {
  const q = query.q?.trim().toLowerCase();
  const name = query.name?.trim().toLowerCase();
  const category = query.category?.trim().toLowerCase();
  const matches = entries.filter(
    (t) =>
      (!q || [t.name, t.description, t.category].some((s) => s.toLowerCase().includes(q))) &&
      (!name || t.name.toLowerCase().includes(name)) &&
      (!category || t.category.toLowerCase() === category),
  );
  const sort = query.sort ?? 'name';
  const byName = sort.replace('-', '') === 'name';
  const dir = sort.startsWith('-') ? -1 : 1;
  const sorted = [...matches].sort(
    (a, b) => dir * (byName ? a.name.localeCompare(b.name) : a.added.localeCompare(b.added)),
  );
  return {
    items: sorted.slice(page.offset, page.offset + page.limit).map(present),
    totalCount: matches.length,
    offset: page.offset,
    limit: page.limit,
  };
}
