import { Type } from '@sinclair/typebox';
import { createSmppCredential } from '../../domain/smpp/create-credential.ts';
import { deleteCredential } from '../../domain/smpp/delete-credential.ts';
import { getCredential, listCredentials } from '../../domain/smpp/list-credentials.ts';
import { presentSmppCredential } from '../../domain/smpp/present.ts';
import { Collection, Envelope, errorResponses, IdParam, PageQuery } from '../../schemas/common.ts';
import { CreateSmppCredentialBody, SmppCredential, SmppCredentialWithPassword } from '../../schemas/smpp.ts';
import { noContent, ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const tags = ['smpp'];

/** SMPP credentials: the system_id / password pairs customers' ESMEs bind to the SMPP server with. */
export async function smppRoutes(app: App) {
  const base = '/v1/accounts/:accountId/smpp/credentials';

  app.post(
    base,
    {
      config: { scope: 'smpp:write' },
      schema: {
        tags,
        summary: 'Issue an SMPP credential',
        description:
          'A `systemId` and `password` an ESME binds to the SMPP server with (transmitter, receiver or transceiver; ' +
          'docs/smpp-server.md). The password is answered only here and stored as a hash. Submissions take the same ' +
          'send path as POST …/messages; `throughput` caps submit_sm a second across the binds (ESME_RTHROTTLED).',
        params: IdParam('accountId'),
        body: CreateSmppCredentialBody,
        response: { 200: Envelope(SmppCredentialWithPassword), ...errorResponses() },
      },
    },
    async (req) => {
      const { credential, password } = await createSmppCredential(
        app.ctx.db,
        req.params.accountId,
        req.body,
        req.actor,
        app.ctx.config.smppServer.throughput,
        app.ctx.config.secretHashCost,
      );
      return ok(presentSmppCredential(credential, password));
    },
  );

  app.get(
    base,
    {
      config: { scope: 'smpp:read' },
      schema: {
        tags,
        summary: 'List SMPP credentials',
        params: IdParam('accountId'),
        querystring: Type.Object(PageQuery),
        response: { 200: Collection(SmppCredential), ...errorResponses() },
      },
    },
    async (req) =>
      page(
        await listCredentials(app.ctx.db, req.params.accountId, req.query.offset, req.query.limit),
        (c) => c,
      ),
  );

  app.get(
    `${base}/:credentialId`,
    {
      config: { scope: 'smpp:read' },
      schema: {
        tags,
        summary: 'Get an SMPP credential',
        params: IdParam('accountId', 'credentialId'),
        response: { 200: Envelope(SmppCredential), ...errorResponses() },
      },
    },
    async (req) => ok(await getCredential(app.ctx.db, req.params.accountId, req.params.credentialId)),
  );

  app.delete(
    `${base}/:credentialId`,
    {
      config: { scope: 'smpp:write' },
      schema: {
        tags,
        summary: 'Delete an SMPP credential',
        description: 'New binds with it are refused, and its open binds are closed within seconds.',
        params: IdParam('accountId', 'credentialId'),
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses() },
      },
    },
    async (req, reply) => {
      await deleteCredential(app.ctx.db, req.params.accountId, req.params.credentialId);
      return noContent(reply);
    },
  );
}
