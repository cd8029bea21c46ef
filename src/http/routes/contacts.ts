import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ContactInput } from '../../domain/contacts/contact-input.ts';
import { createContact } from '../../domain/contacts/create-contact.ts';
import { getContact } from '../../domain/contacts/get-contact.ts';
import { listContacts } from '../../domain/contacts/list-contacts.ts';
import { removeContact } from '../../domain/contacts/remove-contact.ts';
import { updateContact } from '../../domain/contacts/update-contact.ts';
import { uploadContacts } from '../../domain/contacts/upload-contacts.ts';
import { fail } from '../../errors.ts';
import { CSV_BODY_LIMIT, JSON_BODY_LIMIT } from '../plugins/content-types.ts';
import { sendError } from '../plugins/errors.ts';
import { ok, page } from '../respond.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../schemas/common.ts';
import {
  Contact,
  ContactBody,
  ContactListQuery,
  CreateContactQuery,
  CsvUpload,
  UploadResult,
} from '../schemas/contacts.ts';

type AccountP = { Params: { accountId: string } };
type ContactP = { Params: { accountId: string; contactId: string } };

const CONTACT_EVENTS =
  'Events, written in the same transaction: `contact-created` / `contact-updated` with `data` = the Contact; ' +
  '`contact-removed` with `data` = the Contact as it was, plus `removed` {at, by}.';

export async function contactRoutes(app: FastifyInstance) {
  app.post<
    AccountP & { Querystring: { mergeStrategy?: 'append' | 'core' | 'remove' }; Body: ContactInput | string }
  >(
    '/v1/accounts/:accountId/contacts',
    {
      config: { scope: 'contacts:write' },
      bodyLimit: CSV_BODY_LIMIT,
      // The CSV limit is for CSV uploads; a JSON body keeps the service-wide limit.
      onRequest: async (req, reply) => {
        const type = String(req.headers['content-type'] ?? '');
        if (!/csv/i.test(type) && Number(req.headers['content-length'] ?? 0) > JSON_BODY_LIMIT) {
          reply.header('connection', 'close');
          return sendError(reply, 'VAL-003');
        }
      },
      schema: {
        tags: ['contacts'],
        summary: 'Create a contact, or upload contacts as CSV',
        description:
          'JSON: one contact (201; with `mergeStrategy` an existing mobile is merged and answered with 200). ' +
          `\`text/csv\`: an upload of up to ${CSV_BODY_LIMIT / (1024 * 1024)} MiB, written set-based in one transaction (201, counts and failed rows). ` +
          `A mobile already in the account is merged per \`mergeStrategy\`, or is CONT-003 without one. ${CONTACT_EVENTS}`,
        params: IdParam('accountId'),
        querystring: CreateContactQuery,
        body: {
          content: {
            'application/json': { schema: ContactBody },
            'text/csv': { schema: CsvUpload },
            'application/csv': { schema: CsvUpload },
          },
        },
        response: {
          200: Envelope(Contact),
          201: Envelope(Type.Union([Contact, UploadResult])),
          ...errorResponses(409),
        },
      },
    },
    async (req, reply) => {
      const { accountId } = req.params;
      if (typeof req.body === 'string') {
        if (!/csv/i.test(String(req.headers['content-type'])))
          fail('VAL-004', 'Send one contact as JSON or an upload as text/csv.');
        const result = await uploadContacts(
          app.ctx.db,
          accountId,
          req.body,
          req.query.mergeStrategy,
          req.actor,
        );
        return reply.code(201).send(ok(result));
      }
      const { contact, created } = await createContact(
        app.ctx.db,
        accountId,
        req.body ?? {},
        req.query.mergeStrategy,
        req.actor,
      );
      return reply.code(created ? 201 : 200).send(ok(contact));
    },
  );

  app.get<AccountP & { Querystring: typeof ContactListQuery.static }>(
    '/v1/accounts/:accountId/contacts',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags: ['contacts'],
        summary: 'List contacts',
        description: 'Newest first. Filters are partial, case-insensitive matches and combine with AND.',
        params: IdParam('accountId'),
        querystring: ContactListQuery,
        response: { 200: Collection(Contact), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, ...filter } = req.query;
      return page(await listContacts(app.ctx.db, req.params.accountId, filter, { offset, limit }), (c) => c);
    },
  );

  app.get<ContactP>(
    '/v1/accounts/:accountId/contacts/:contactId',
    {
      config: { scope: 'contacts:read' },
      schema: {
        tags: ['contacts'],
        summary: 'Get a contact',
        params: IdParam('accountId', 'contactId'),
        response: { 200: Envelope(Contact), ...errorResponses() },
      },
    },
    async (req) => ok(await getContact(app.ctx.db, req.params.accountId, req.params.contactId)),
  );

  app.put<ContactP & { Body: ContactInput }>(
    '/v1/accounts/:accountId/contacts/:contactId',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags: ['contacts'],
        summary: 'Update a contact',
        description:
          'Updates the given fields only. `attributes` merge key by key (null removes a key); `tags`, when given, replace ' +
          `the tags. A mobile another contact has is 409 CONT-003. ${CONTACT_EVENTS}`,
        params: IdParam('accountId', 'contactId'),
        body: ContactBody,
        response: { 200: Envelope(Contact), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(await updateContact(app.ctx.db, req.params.accountId, req.params.contactId, req.body, req.actor)),
  );

  app.delete<ContactP>(
    '/v1/accounts/:accountId/contacts/:contactId',
    {
      config: { scope: 'contacts:write' },
      schema: {
        tags: ['contacts'],
        summary: 'Delete a contact',
        description: `Deletes the contact and its list memberships. ${CONTACT_EVENTS}`,
        params: IdParam('accountId', 'contactId'),
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await removeContact(app.ctx.db, req.params.accountId, req.params.contactId, req.actor);
      return { success: true as const };
    },
  );
}
