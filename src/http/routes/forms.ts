import { createForm } from '../../domain/forms/create-form.ts';
import { deleteForm } from '../../domain/forms/delete-form.ts';
import { formAnalytics } from '../../domain/forms/form-analytics.ts';
import { getForm } from '../../domain/forms/get-form.ts';
import { listFormConversions } from '../../domain/forms/list-form-conversions.ts';
import { listFormTemplates } from '../../domain/forms/list-form-templates.ts';
import { listForms } from '../../domain/forms/list-forms.ts';
import { setFormActive } from '../../domain/forms/set-form-active.ts';
import { updateForm } from '../../domain/forms/update-form.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  AnalyticsQuery,
  ConversionQuery,
  CreateFormBody,
  FormAnalytics,
  FormConversion,
  FormListQuery,
  FormParams,
  FormTemplate,
  LeadForm,
  TemplateQuery,
  UpdateFormBody,
} from '../../schemas/forms.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['forms'];
const read = { scope: 'forms:read' as const };
const write = { scope: 'forms:write' as const };

/** Lead forms: definitions, activation, the template catalog, analytics and conversions. */
export async function formRoutes(app: App) {
  const base = '/v1/accounts/:accountId/forms';
  const ext = () => app.ctx.config.externalsUrl;

  app.get(
    `${base}/templates`,
    {
      config: read,
      schema: {
        tags,
        summary: 'List form templates',
        description:
          'The built-in catalog of ready-made forms (newsletter sign-up, contest entry, appointment request, …) ' +
          'in the Lead form shape. `q` matches name, description or category; create a form from one with ' +
          '`POST …/forms` and `templateId`.',
        params: IdParam('accountId'),
        querystring: TemplateQuery,
        response: { 200: Collection(FormTemplate), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, q, sort } = req.query;
      return page(listFormTemplates({ q, sort }, { offset, limit }), (t) => t);
    },
  );

  app.get(
    base,
    {
      config: read,
      schema: {
        tags,
        summary: 'List forms',
        description: 'Newest first; `name` filters by partial, case-insensitive match.',
        params: IdParam('accountId'),
        querystring: FormListQuery,
        response: { 200: Collection(LeadForm), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(
        await listForms(app.ctx.db, req.params.accountId, { name }, { offset, limit }, ext()),
        (f) => f,
      );
    },
  );

  app.post(
    base,
    {
      config: write,
      schema: {
        tags,
        summary: 'Create a form',
        description:
          'From scratch or from a catalog template (`templateId`: it fills what the body leaves out). ' +
          '`mobile` is always a field and required. Inactive unless `active` is true.',
        params: IdParam('accountId'),
        body: CreateFormBody,
        response: { 201: Envelope(LeadForm), ...errorResponses(409) },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(ok(await createForm(app.ctx.db, req.params.accountId, req.body, req.actor, ext()))),
  );

  app.get(
    `${base}/:formId`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Get a form',
        params: FormParams,
        response: { 200: Envelope(LeadForm), ...errorResponses() },
      },
    },
    async (req) => ok(await getForm(app.ctx.db, req.params.accountId, req.params.formId, ext())),
  );

  app.put(
    `${base}/:formId`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Update a form',
        description:
          'Updates the given fields only; `fields` replaces the whole list; `listId: null` removes the list.',
        params: FormParams,
        body: UpdateFormBody,
        response: { 200: Envelope(LeadForm), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(await updateForm(app.ctx.db, req.params.accountId, req.params.formId, req.body, req.actor, ext())),
  );

  app.delete(
    `${base}/:formId`,
    {
      config: write,
      schema: {
        tags,
        summary: 'Delete a form',
        description: 'With its conversions and counters; the contacts it created stay.',
        params: FormParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteForm(app.ctx.db, req.params.accountId, req.params.formId);
      return { success: true as const };
    },
  );

  for (const [action, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    app.put(
      `${base}/:formId/${action}`,
      {
        config: write,
        schema: {
          tags,
          summary: active ? 'Activate a form' : 'Deactivate a form',
          description: active
            ? 'The hosted page accepts submissions; `active` is the time it went live (kept when already active).'
            : 'The hosted page answers 404 and `active` becomes null. Idempotent.',
          params: FormParams,
          response: { 200: Envelope(LeadForm), ...errorResponses() },
        },
      },
      async (req) =>
        ok(
          await setFormActive(app.ctx.db, req.params.accountId, req.params.formId, active, req.actor, ext()),
        ),
    );
  }

  app.get(
    `${base}/:formId/analytics`,
    {
      config: read,
      schema: {
        tags,
        summary: 'Form analytics',
        description:
          'Impressions and conversions per UTC day from `start` to `end` (inclusive, at most 366 days).',
        params: FormParams,
        querystring: AnalyticsQuery,
        response: { 200: Envelope(FormAnalytics), ...errorResponses() },
      },
    },
    async (req) => ok(await formAnalytics(app.ctx.db, req.params.accountId, req.params.formId, req.query)),
  );

  app.get(
    `${base}/:formId/conversions`,
    {
      config: read,
      schema: {
        tags,
        summary: 'List form conversions',
        description:
          'Accepted submissions, newest first, between `start` and `end` (ISO dates or date-times; a date-only ' +
          '`end` covers its whole UTC day).',
        params: FormParams,
        querystring: ConversionQuery,
        response: { 200: Collection(FormConversion), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, start, end } = req.query;
      return page(
        await listFormConversions(
          app.ctx.db,
          req.params.accountId,
          req.params.formId,
          { start, end },
          { offset, limit },
        ),
        (c) => c,
      );
    },
  );
}
