import { type CatalogSort, searchCatalog } from '../catalog/search-catalog.ts';
import type { Page } from '../page.ts';
import { FORM_TEMPLATES } from './form-templates.ts';
import { presentFormTemplate } from './present-form.ts';

/** A sort order of the template catalog. */
export type TemplateSort = CatalogSort;

/**
 * A page of the built-in form templates: `q` matches name, description or category (partial,
 * case-insensitive); sorted by name (default) or by when they were added.
 */
export function listFormTemplates(
  query: { q?: string; sort?: TemplateSort },
  page: { offset: number; limit: number },
): Page<ReturnType<typeof presentFormTemplate>> {
  return searchCatalog(FORM_TEMPLATES, { q: query.q, sort: query.sort }, page, presentFormTemplate);
}
