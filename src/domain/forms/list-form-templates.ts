import type { Page } from '../../http/respond.ts';
import { FORM_TEMPLATES } from './form-templates.ts';
import { presentFormTemplate } from './present-form.ts';

/** The sort orders of the template catalog (`-` descending). */
export const TEMPLATE_SORTS = ['name', '-name', 'created', '-created'] as const;

/** A sort order of the template catalog. */
export type TemplateSort = (typeof TEMPLATE_SORTS)[number];

/**
 * A page of the built-in form templates: `q` matches name, description or category (partial,
 * case-insensitive); sorted by name (default) or by when they were added.
 */
export function listFormTemplates(
  query: { q?: string; sort?: TemplateSort },
  page: { offset: number; limit: number },
): Page<ReturnType<typeof presentFormTemplate>> {
  const q = query.q?.trim().toLowerCase();
  const matches = FORM_TEMPLATES.filter(
    (t) => !q || [t.name, t.description, t.category].some((s) => s.toLowerCase().includes(q)),
  );
  const sort = query.sort ?? 'name';
  const key = sort.replace('-', '') as 'name' | 'created';
  const dir = sort.startsWith('-') ? -1 : 1;
  const sorted = [...matches].sort(
    (a, b) => dir * (key === 'name' ? a.name.localeCompare(b.name) : a.added.localeCompare(b.added)),
  );
  return {
    items: sorted.slice(page.offset, page.offset + page.limit).map(presentFormTemplate),
    totalCount: matches.length,
    ...page,
  };
}
