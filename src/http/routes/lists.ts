import { addListContacts } from '../../domain/lists/add-list-contacts.ts';
import { createList } from '../../domain/lists/create-list.ts';
import { getList } from '../../domain/lists/get-list.ts';
import { listListContacts } from '../../domain/lists/list-list-contacts.ts';
import { listLists } from '../../domain/lists/list-lists.ts';
import { removeList } from '../../domain/lists/remove-list.ts';
import { removeListContact } from '../../domain/lists/remove-list-contact.ts';
import { updateList } from '../../domain/lists/update-list.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import { Contact, ContactListQuery } from '../../schemas/contacts.ts';
import {
  AddContactsBody,
  AddContactsResult,
  CreateListBody,
  List,
  ListListQuery,
  UpdateListBody,
} from '../../schemas/lists.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

export async function listRoutes(app: App) {
  app.post(
    '/v1/accounts/:accountId/lists',
    {
      config: { scope: 'lists:write' },
      schema: {
        tags: ['lists'],
        summary: 'Create a list',
        description:
          'A list without `filter` is static: contacts are added by id. With `filter` it is a smart list: its members are ' +
          'the contacts matching the filter whenever it is read or sent to.',
        params: IdParam('accountId'),
        body: CreateListBody,
        response: { 201: Envelope(List), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply.code(201).send(ok(await createList(app.ctx.db, req.params.accountId, req.body, req.actor))),
  );

  app.get(
    '/v1/accounts/:accountId/lists',
    {
      config: { scope: 'lists:read' },
      schema: {
        tags: ['lists'],
        summary: 'List lists',
        description: 'Newest first.',
        params: IdParam('accountId'),
        querystring: ListListQuery,
        response: { 200: Collection(List), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, name } = req.query;
      return page(await listLists(app.ctx.db, req.params.accountId, { name }, { offset, limit }), (l) => l);
    },
  );

  app.get(
    '/v1/accounts/:accountId/lists/:listId',
    {
      config: { scope: 'lists:read' },
      schema: {
        tags: ['lists'],
        summary: 'Get a list',
        params: IdParam('accountId', 'listId'),
        response: { 200: Envelope(List), ...errorResponses() },
      },
    },
    async (req) => ok(await getList(app.ctx.db, req.params.accountId, req.params.listId)),
  );

  app.put(
    '/v1/accounts/:accountId/lists/:listId',
    {
      config: { scope: 'lists:write' },
      schema: {
        tags: ['lists'],
        summary: 'Update a list',
        description:
          'Updates the given fields only. `filter: null` turns a smart list into an (empty) static list.',
        params: IdParam('accountId', 'listId'),
        body: UpdateListBody,
        response: { 200: Envelope(List), ...errorResponses() },
      },
    },
    async (req) =>
      ok(await updateList(app.ctx.db, req.params.accountId, req.params.listId, req.body, req.actor)),
  );

  app.delete(
    '/v1/accounts/:accountId/lists/:listId',
    {
      config: { scope: 'lists:write' },
      schema: {
        tags: ['lists'],
        summary: 'Delete a list',
        description: 'Deletes the list and its memberships; the contacts stay.',
        params: IdParam('accountId', 'listId'),
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await removeList(app.ctx.db, req.params.accountId, req.params.listId);
      return { success: true as const };
    },
  );

  app.post(
    '/v1/accounts/:accountId/lists/:listId/contacts',
    {
      config: { scope: 'lists:write' },
      schema: {
        tags: ['lists'],
        summary: 'Add contacts to a list',
        description:
          'Adds up to 10,000 contacts in one statement. Ids naming no contact of the account count as `notFound`. ' +
          'Memberships are opted in now unless the list has double opt-in. A smart list is 409 LIST-002.',
        params: IdParam('accountId', 'listId'),
        body: AddContactsBody,
        response: { 200: Envelope(AddContactsResult), ...errorResponses(409) },
      },
    },
    async (req) =>
      ok(await addListContacts(app.ctx.db, req.params.accountId, req.params.listId, req.body.contactIds)),
  );

  app.get(
    '/v1/accounts/:accountId/lists/:listId/contacts',
    {
      config: { scope: 'lists:read' },
      schema: {
        tags: ['lists'],
        summary: "List a list's contacts",
        description: 'Newest first, with the contact filters; a smart list is evaluated now.',
        params: IdParam('accountId', 'listId'),
        querystring: ContactListQuery,
        response: { 200: Collection(Contact), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, ...filter } = req.query;
      return page(
        await listListContacts(app.ctx.db, req.params.accountId, req.params.listId, filter, {
          offset,
          limit,
        }),
        (c) => c,
      );
    },
  );

  app.delete(
    '/v1/accounts/:accountId/lists/:listId/contacts/:contactId',
    {
      config: { scope: 'lists:write' },
      schema: {
        tags: ['lists'],
        summary: 'Remove a contact from a list',
        description: 'The contact stays. Not a member: 404 CONT-002; a smart list: 409 LIST-002.',
        params: IdParam('accountId', 'listId', 'contactId'),
        response: { 200: Success, ...errorResponses(409) },
      },
    },
    async (req) => {
      await removeListContact(app.ctx.db, req.params.accountId, req.params.listId, req.params.contactId);
      return { success: true as const };
    },
  );
}
