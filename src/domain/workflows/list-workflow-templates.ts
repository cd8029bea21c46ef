import { fail } from '../../errors.ts';
import { SYSTEM, stamp } from '../actor.ts';
import { type CatalogSort, searchCatalog } from '../catalog/search-catalog.ts';
import type { Page } from '../page.ts';
import { normalizeDefinition } from './definition.ts';
import { presentDefinition } from './present-workflow.ts';
import { findWorkflowTemplate, WORKFLOW_TEMPLATES, type WorkflowTemplate } from './workflow-templates.ts';

/** A sort order of the template catalog. */
export type WorkflowTemplateSort = CatalogSort;

/**
 * A catalog template in the Workflow shape (plus `category` and `description`): one version, not
 * active and not read-only, whose definition is the template's after the workflow validation.
 */
export function presentWorkflowTemplate(t: WorkflowTemplate) {
  const at = stamp(t.added, SYSTEM);
  return {
    id: t.id,
    name: t.name,
    category: t.category,
    description: t.description,
    created: at,
    updated: at,
    versions: [
      {
        id: `${t.id}-v1`,
        name: 'v1',
        definition: presentDefinition(normalizeDefinition(t.definition, null)),
        created: at,
        updated: at,
        readonly: false,
      },
    ],
  };
}

/** A workflow template as the API shows it. */
export type WorkflowTemplateView = ReturnType<typeof presentWorkflowTemplate>;

/**
 * A page of the built-in workflow templates: `q` matches name, description or category, `name`
 * the name only (both partial, case-insensitive); `category` is an exact (case-insensitive) match.
 * Sorted by name (default) or by when they were added.
 */
export function listWorkflowTemplates(
  query: { q?: string; name?: string; category?: string; sort?: WorkflowTemplateSort },
  page: { offset: number; limit: number },
): Page<WorkflowTemplateView> {
  return searchCatalog(WORKFLOW_TEMPLATES, query, page, presentWorkflowTemplate);
}

/** One catalog template in the API shape. Errors: WF-018 no such template. */
export function getWorkflowTemplate(templateId: string): WorkflowTemplateView {
  const t =
    findWorkflowTemplate(templateId) ??
    fail('WF-018', `Workflow template "${templateId.slice(0, 100)}" not found.`);
  return presentWorkflowTemplate(t);
}
