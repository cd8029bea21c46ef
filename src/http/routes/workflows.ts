import { Type } from '@sinclair/typebox';
import { createWorkflow } from '../../domain/workflows/create-workflow.ts';
import { deleteWorkflow } from '../../domain/workflows/delete-workflow.ts';
import { enrollContact } from '../../domain/workflows/enroll-contact.ts';
import { getWorkflow } from '../../domain/workflows/get-workflow.ts';
import { listEnrollments } from '../../domain/workflows/list-enrollments.ts';
import { listWorkflows } from '../../domain/workflows/list-workflows.ts';
import { NODE_TYPES } from '../../domain/workflows/node-types.ts';
import { updateEdge } from '../../domain/workflows/update-edge.ts';
import { updateWorkflow } from '../../domain/workflows/update-workflow.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  CreateWorkflowBody,
  Edge,
  EdgeBody,
  EdgeParams,
  EnrollBody,
  Enrollment,
  EnrollmentListQuery,
  NodeType,
  UpdateWorkflowBody,
  Workflow,
  WorkflowListQuery,
  WorkflowParams,
} from '../../schemas/workflows.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['workflows'];
const read = { scope: 'workflows:read' as const };
const write = { scope: 'workflows:write' as const };

export async function workflowRoutes(app: App) {
  const base = '/v1/accounts/:accountId/workflows';

  app.get(
    `${base}/nodetypes`,
    {
      config: read,
      schema: {
        tags,
        summary: 'List node types',
        description: 'The catalog of node types a definition can use (`type: {id}` of a node).',
        params: IdParam('accountId'),
        response: { 200: Envelope(Type.Array(NodeType)), ...errorResponses() },
      },
    },
    async () => ok([...NODE_TYPES]),
  );

  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        summary: 'List workflows',
        description:
          'Newest first, each with its versions; `name` filters by partial, case-insensitive match.',
        params: IdParam('accountId'),
        querystring: WorkflowListQuery,
        response: { 200: Collection(Workflow), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(
        await listWorkflows(app.ctx.db, req.params.accountId, { name }, { offset, limit }),
        (w) => w,
      );
    },
  );

  app.post(
    base,
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a workflow',
        description:
          'With its versions; one with `activate: true` becomes the active version (contacts start entering it). ' +
          'An invalid definition is 400 with a WF-0NN code naming the node or edge. Or from a catalog template ' +
          '(`templateId`, GET …/workflowtemplates): its definition becomes the inactive version `v1`, editable like ' +
          "any other; `name` defaults to the template's. `templateId` with `versions` is 400 WF-019; an unknown " +
          'template 404 WF-018.',
        params: IdParam('accountId'),
        body: CreateWorkflowBody,
        response: { 201: Envelope(Workflow), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await createWorkflow(
              app.ctx.db,
              req.params.accountId,
              req.body,
              req.actor,
              app.ctx.config.externalsUrl,
            ),
          ),
        ),
  );

  app.get(
    `${base}/:workflowId`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a workflow',
        params: WorkflowParams,
        response: { 200: Envelope(Workflow), ...errorResponses() },
      },
    },
    async (req) => ok(await getWorkflow(app.ctx.db, req.params.accountId, req.params.workflowId)),
  );

  app.put(
    `${base}/:workflowId`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Update a workflow',
        description:
          'Renames it and/or applies `versions`: with `id` edits that version, without adds one; versions ' +
          'not named stay. A version set `active` becomes THE active version. A read-only version (one that ' +
          'has run) keeps its definition: changing it is 409 WF-004 — add a new version instead. A node sent with ' +
          "an empty `type` (`{}`) keeps the type it has in the version edited (for a new version: the workflow's " +
          'current one, active else newest); a new node needs `type.id` (400 WF-011 naming the node).',
        params: WorkflowParams,
        body: UpdateWorkflowBody,
        response: { 200: Envelope(Workflow), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(
        await updateWorkflow(
          app.ctx.db,
          req.params.accountId,
          req.params.workflowId,
          req.body,
          req.actor,
          app.ctx.config.externalsUrl,
        ),
      ),
  );

  app.delete(
    `${base}/:workflowId`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a workflow',
        description: 'With its versions and enrollments: running enrollments stop. Sent messages stay.',
        params: WorkflowParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteWorkflow(app.ctx.db, req.params.accountId, req.params.workflowId);
      return { success: true as const };
    },
  );

  app.put(
    `${base}/:workflowId/edges/:edgeId`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Update an edge',
        description:
          "Edits the edge in the workflow's editable version (the newest not read-only) and answers the Edge " +
          'itself, not in the envelope (errors keep the error envelope). 409 WF-005 when every version is read-only.',
        params: EdgeParams,
        body: EdgeBody,
        response: { 200: Edge, ...errorResponses(409) },
      },
    },
    async (req) =>
      updateEdge(
        app.ctx.db,
        req.params.accountId,
        req.params.workflowId,
        req.params.edgeId,
        req.body.data,
        req.actor,
        app.ctx.config.externalsUrl,
      ),
  );

  app.post(
    `${base}/:workflowId/enrollments`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Enroll a contact',
        description:
          'Starts the contact on the active version now (any trigger). 409 WF-006 without an active version, ' +
          'WF-007 when the contact is in it already; 400 CONT-010 / CONT-011 for opted-out / blocked contacts.',
        params: WorkflowParams,
        body: EnrollBody,
        response: { 201: Envelope(Enrollment), ...errorResponses(409) },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await enrollContact(app.ctx.db, req.params.accountId, req.params.workflowId, req.body.contactId),
          ),
        ),
  );

  app.get(
    `${base}/:workflowId/enrollments`,
    {
      config: read,
      schema: {
        tags,
        summary: 'List enrollments',
        description:
          'The runs of the workflow, newest first, with status (`active`, `waiting`, `completed`, `stopped`, ' +
          '`errored`) and current node; filter by `status` and `contactId`.',
        params: WorkflowParams,
        querystring: EnrollmentListQuery,
        response: { 200: Collection(Enrollment), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, status, contactId } = req.query;
      return page(
        await listEnrollments(
          app.ctx.db,
          req.params.accountId,
          req.params.workflowId,
          { status, contactId },
          {
            offset,
            limit,
          },
        ),
        (e) => e,
      );
    },
  );
}
