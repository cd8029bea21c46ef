import {
  getWorkflowTemplate,
  listWorkflowTemplates,
} from '../../domain/workflows/list-workflow-templates.ts';
import { Collection, Envelope, errorResponses, IdParam } from '../../schemas/common.ts';
import { WorkflowTemplate, WorkflowTemplateParams, WorkflowTemplateQuery } from '../../schemas/workflows.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['workflows'];
const read = { scope: 'workflows:read' as const };

/** The catalog of ready-made workflows (the interface's `workflowtemplates` area). */
export async function workflowTemplateRoutes(app: App) {
  const base = '/v1/accounts/:accountId/workflowtemplates';

  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        summary: 'List workflow templates',
        description:
          'The built-in catalog of ready-made workflows (welcome series, appointment reminder, keyword double ' +
          'opt-in, …) in the Workflow shape with `category` and `description`; each has one version whose ' +
          'definition passes the workflow validation. `q` matches name, description or category, `name` the ' +
          'name (both partial, any case), `category` exactly. Create a workflow from one with `POST …/workflows` ' +
          'and `templateId`.',
        params: IdParam('accountId'),
        querystring: WorkflowTemplateQuery,
        response: { 200: Collection(WorkflowTemplate), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, q, name, category, sort } = req.query;
      return page(listWorkflowTemplates({ q, name, category, sort }, { offset, limit }), (t) => t);
    },
  );

  app.get(
    `${base}/:templateId`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a workflow template',
        description: 'One catalog template; 404 WF-018 for an unknown id.',
        params: WorkflowTemplateParams,
        response: { 200: Envelope(WorkflowTemplate), ...errorResponses() },
      },
    },
    async (req) => ok(getWorkflowTemplate(req.params.templateId)),
  );
}
