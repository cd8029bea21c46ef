import type { FastifyInstance, FastifyRequest } from 'fastify';
import { renderFormPage, renderMessagePage, renderThanksPage } from '../../domain/forms/hosted-page.ts';
import { showHostedForm } from '../../domain/forms/show-hosted-form.ts';
import { PAGE_URL_FIELD, pageUrlOf } from '../../domain/forms/submission-input.ts';
import { submitForm } from '../../domain/forms/submit-form.ts';
import { sendPage } from '../page-headers.ts';
import { sendError } from '../plugins/errors.ts';

type FormP = { Params: { formId: string }; Querystring: Record<string, unknown> };

const notFoundPage = () =>
  renderMessagePage('Form not available', 'This form does not exist or is no longer accepting submissions.');

function isJson(req: FastifyRequest): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
}

/**
 * Hosted lead forms on the public listener (no bearer token): GET shows the page and counts an
 * impression; POST (form-encoded from the page, or JSON from a site's own script) submits it.
 * HTML answers to the page, the JSON envelope to JSON requests.
 */
export async function hostedFormRoutes(app: FastifyInstance) {
  app.get<FormP>('/f/:formId', async (req, reply) => {
    const form = await showHostedForm(app.ctx.db, req.params.formId);
    if (!form) return sendPage(reply, 404, notFoundPage());
    // The page that linked here (or ?pageUrl=) is carried into the submission as the conversion's page.
    const pageUrl = pageUrlOf(req.query.pageUrl) ?? pageUrlOf(req.headers.referer);
    return sendPage(reply, 200, renderFormPage(form, { pageUrl }));
  });

  app.post<FormP>('/f/:formId', async (req, reply) => {
    const raw = req.body;
    // A null-prototype copy: a field named like an Object.prototype member reads only what was submitted.
    const values: Record<string, unknown> = Object.assign(
      Object.create(null),
      raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {},
    );
    const outcome = await submitForm(app.ctx.db, req.params.formId, {
      values,
      ip: req.ip ?? null,
      referer: req.headers.referer,
      confirmationsPerHour: app.ctx.config.anonymousTextsPerHour.form,
      prices: app.ctx.config.priceTable,
    });
    if (outcome.kind === 'accepted' && outcome.confirmationError?.code === 'FORM-005') {
      req.log.warn({ formId: outcome.form.id }, 'form confirmation texts: hourly cap reached, none sent');
    }
    const json = isJson(req);
    switch (outcome.kind) {
      case 'not-found':
        return json ? sendError(reply, 'FORM-001') : sendPage(reply, 404, notFoundPage());
      case 'invalid':
        return json
          ? sendError(reply, 'FORM-004', 'The submission is invalid: see details.fields.', {
              fields: outcome.errors,
            })
          : sendPage(
              reply,
              400,
              renderFormPage(outcome.form, {
                values,
                errors: outcome.errors,
                pageUrl: pageUrlOf(values[PAGE_URL_FIELD]),
              }),
            );
      default:
        // A filled honeypot gets the same answer as a real submission: the bot learns nothing.
        return json
          ? reply.code(200).send({
              success: true,
              data: { message: outcome.form.success_message || 'Thank you! Your details were received.' },
            })
          : sendPage(reply, 200, renderThanksPage(outcome.form));
    }
  });
}
