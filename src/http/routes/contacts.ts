import { createReadStream } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { createContact } from '../../domain/contacts/create-contact.ts';
import { getContact } from '../../domain/contacts/get-contact.ts';
import { listContacts } from '../../domain/contacts/list-contacts.ts';
import { removeContact } from '../../domain/contacts/remove-contact.ts';
import { updateContact } from '../../domain/contacts/update-contact.ts';
import { uploadContacts } from '../../domain/contacts/upload-contacts.ts';
import { fail } from '../../errors.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  Contact,
  ContactBody,
  ContactListQuery,
  CreateContactQuery,
  CsvUpload,
  UploadResult,
} from '../../schemas/contacts.ts';
import { CSV_BODY_LIMIT } from '../../schemas/limits.ts';
import { SpooledUpload } from '../../storage/spooled-upload.ts';
import { createdCollection, ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const CONTACT_EVENTS =
  'Events, written in the same transaction: `contact-created` / `contact-updated` with `data` = the Contact; ' +
  '`contact-removed` with `data` = the Contact as it was, plus `removed` {at, by}.';

export async function contactRoutes(app: App) {
  app.post(
    '/v1/accounts/:accountId/contacts',
    {
      // A text/csv body arrives spooled to a file (plugins/content-types.ts); JSON keeps the 1 MiB limit.
      config: { scope: 'contacts:write', csvUpload: true },
      schema: {
        tags: ['contacts'],
        summary: 'Create a contact, or upload contacts as CSV',
        description:
          'JSON: one contact, answered 201 with `data` an array of that one contact (the published collection shape); ' +
          'with `mergeStrategy` an existing mobile is merged into that contact (also 201), without one it is 409 CONT-003. ' +
          `\`text/csv\`: an upload of up to ${CSV_BODY_LIMIT / 1024 / 1024} MiB (413 VAL-003 above), parsed as a stream and written ` +
          'set-based in one transaction (201, counts and failed rows); a row over a limit (columns, attributes) refuses ' +
          'the whole upload with 400 naming the row, and nothing is written. ' +
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
          201: Type.Union([Collection(Contact), Envelope(UploadResult)]),
          ...errorResponses(409),
        },
      },
    },
    async (req, reply) => {
      const { accountId } = req.params;
      if (req.body instanceof SpooledUpload) {
        const result = await uploadContacts(
          app.ctx.db,
          accountId,
          createReadStream(req.body.file),
          req.query.mergeStrategy,
          req.actor,
        );
        return reply.code(201).send(ok(result));
      }
      // Fastify's own text/plain parser hands over a string.
      if (typeof req.body === 'string') fail('VAL-004', 'Send one contact as JSON or an upload as text/csv.');
      const { contact } = await createContact(
        app.ctx.db,
        accountId,
        req.body ?? {},
        req.query.mergeStrategy,
        req.actor,
      );
      return reply.code(201).send(createdCollection(contact));
    },
  );

  app.get(
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

  app.get(
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

  app.put(
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

  app.delete(
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
