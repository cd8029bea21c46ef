import type { RegistrationFields } from '../../db/queries/compliance.ts';
import {
  createRegistration,
  deleteRegistration,
  getRegistration,
  listRegistrations,
  updateRegistration,
} from '../../domain/compliance/registrations.ts';
import { Collection, Envelope, errorResponses, IdParam, Success } from '../../schemas/common.ts';
import {
  CreateRegistrationBody,
  Registration,
  RegistrationListQuery,
  UpdateRegistrationBody,
} from '../../schemas/compliance.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['compliance'];
const ABOUT =
  'Records of the account’s 10DLC brand and campaign registrations and toll-free verifications: the ids the ' +
  'carrier or registry gave them, their state, the numbers or group they cover and the caps granted. Sparrow ' +
  'records them; registering goes through the carrier.';

/** Compliance registrations (10DLC brands and campaigns, toll-free verifications). */
export async function complianceRoutes(app: App) {
  const base = '/v1/accounts/:accountId/compliance/registrations';

  app.get(
    base,
    {
      config: { scope: 'numbers:read' },
      schema: {
        tags,
        summary: 'List compliance registrations',
        description: `${ABOUT} Newest first; \`kind\` filters.`,
        params: IdParam('accountId'),
        querystring: RegistrationListQuery,
        response: { 200: Collection(Registration), ...errorResponses() },
      },
    },
    async (req) => {
      const { offset, limit, kind } = req.query;
      return page(
        await listRegistrations(app.ctx.db, req.params.accountId, kind, { offset, limit }),
        (r) => r,
      );
    },
  );

  app.post(
    base,
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags,
        summary: 'Record a compliance registration',
        description:
          `${ABOUT} \`status\` defaults to \`draft\`. Numbers and the group must be the account’s (NUM-001, ` +
          'GRP-001); a 10DLC campaign’s `parentId` must be one of its 10DLC brands (VAL-001).',
        params: IdParam('accountId'),
        body: CreateRegistrationBody,
        response: { 201: Envelope(Registration), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await createRegistration(
              app.ctx.db,
              req.params.accountId,
              req.body as RegistrationFields,
              req.actor,
            ),
          ),
        ),
  );

  app.get(
    `${base}/:registrationId`,
    {
      config: { scope: 'numbers:read' },
      schema: {
        tags,
        summary: 'Get a compliance registration',
        params: IdParam('accountId', 'registrationId'),
        response: { 200: Envelope(Registration), ...errorResponses() },
      },
    },
    async (req) => ok(await getRegistration(app.ctx.db, req.params.accountId, req.params.registrationId)),
  );

  app.put(
    `${base}/:registrationId`,
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags,
        summary: 'Change a compliance registration',
        description: 'Sets the given fields (null clears an optional one); the kind stays.',
        params: IdParam('accountId', 'registrationId'),
        body: UpdateRegistrationBody,
        response: { 200: Envelope(Registration), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await updateRegistration(
          app.ctx.db,
          req.params.accountId,
          req.params.registrationId,
          req.body as RegistrationFields,
          req.actor,
        ),
      ),
  );

  app.delete(
    `${base}/:registrationId`,
    {
      config: { scope: 'numbers:write' },
      schema: {
        tags,
        summary: 'Delete a compliance registration',
        params: IdParam('accountId', 'registrationId'),
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await deleteRegistration(app.ctx.db, req.params.accountId, req.params.registrationId);
      return { success: true as const };
    },
  );
}
