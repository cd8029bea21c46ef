import { Type } from '@sinclair/typebox';
import {
  createAccountClient,
  listAccountClients,
  revokeAccountClient,
} from '../../domain/auth/account-clients.ts';
import { changeRole, getUser, inviteUser, listUsers, removeUser } from '../../domain/users/members.ts';
import { listInvitations, resendInvitation, revokeInvitation } from '../../domain/users/open-invitations.ts';
import { Collection, Envelope, errorResponses, IdParam, PageQuery, Success } from '../../schemas/common.ts';
import {
  ApiClient,
  ApiClientWithSecret,
  ChangeRoleBody,
  ClientParams,
  CreateClientBody,
  Invitation,
  InvitationParams,
  InviteUserBody,
  OpenInvitation,
  Removal,
  User,
  UserParams,
} from '../../schemas/users.ts';
import { ok, page } from '../respond.ts';
import type { App } from '../types.ts';

const PageQ = Type.Object(PageQuery);

/** An invitation as POST …/users answers it. */
function invitationAnswer(inv: Awaited<ReturnType<typeof inviteUser>>) {
  return {
    email: inv.email,
    role: inv.role,
    link: inv.link,
    expires: inv.expires,
    emailStatus: inv.emailOutcome.status,
    ...(inv.emailOutcome.error ? { emailError: inv.emailOutcome.error } : {}),
  };
}

/** The account's console users (invite, change role, remove) and its API clients (create, revoke). */
export async function userRoutes(app: App) {
  const users = '/v1/accounts/:accountId/users';
  const clients = '/v1/accounts/:accountId/clients';

  app.get(
    users,
    {
      config: { scope: 'users:read' },
      schema: {
        tags: ['users'],
        summary: "List the account's console users",
        description: 'People who sign in to the web console, with their role in this account, by e-mail.',
        params: IdParam('accountId'),
        querystring: PageQ,
        response: { 200: Collection(User), ...errorResponses() },
      },
    },
    async (req) =>
      page(await listUsers(app.ctx.db, req.params.accountId, req.query.offset, req.query.limit), (u) => u),
  );

  app.post(
    users,
    {
      config: { scope: 'users:write' },
      schema: {
        tags: ['users'],
        summary: 'Invite a person to the console',
        description:
          'Answers an invitation link, shown once and valid for `CONSOLE_INVITATION_HOURS`: the person opens it, sets a ' +
          'password (a person who already has one keeps it) and joins the account with `role`. With an SMTP server ' +
          'configured (`SMTP_URL`) the link is also e-mailed to `email` once the invitation is stored, and `emailStatus` ' +
          'says whether the server took it (`sent`) or not (`failed`, with `emailError`; the invitation stands: pass ' +
          'the link on); without one `emailStatus` is `none`: pass the link on.',
        params: IdParam('accountId'),
        body: InviteUserBody,
        response: { 201: Envelope(Invitation), ...errorResponses() },
      },
    },
    async (req, reply) => {
      const inv = await inviteUser(app.ctx.db, app.ctx, req.params.accountId, req.body, req.actor);
      return reply.code(201).send(ok(invitationAnswer(inv)));
    },
  );

  const invitations = '/v1/accounts/:accountId/invitations';

  app.get(
    invitations,
    {
      config: { scope: 'users:read' },
      schema: {
        tags: ['users'],
        summary: "List the account's open invitations",
        description:
          'Invitations not yet accepted and not expired, newest first. Their links are not shown again (only a hash ' +
          'is kept): resend one to make a new link.',
        params: IdParam('accountId'),
        querystring: PageQ,
        response: { 200: Collection(OpenInvitation), ...errorResponses() },
      },
    },
    async (req) =>
      page(
        await listInvitations(app.ctx.db, req.params.accountId, {
          offset: req.query.offset,
          limit: req.query.limit,
        }),
        (i) => i,
      ),
  );

  app.delete(
    `${invitations}/:invitationId`,
    {
      config: { scope: 'users:write' },
      schema: {
        tags: ['users'],
        summary: 'Revoke an open invitation',
        description: 'Its link stops working. An accepted, expired or unknown one is 404 USER-011.',
        params: InvitationParams,
        response: { 200: Success, ...errorResponses() },
      },
    },
    async (req) => {
      await revokeInvitation(app.ctx.db, req.params.accountId, req.params.invitationId);
      return { success: true as const };
    },
  );

  app.post(
    `${invitations}/:invitationId/resend`,
    {
      config: { scope: 'users:write' },
      schema: {
        tags: ['users'],
        summary: 'Send an open invitation again',
        description:
          'The old link stops working; a new invitation for the same e-mail and role is made and answered as ' +
          '`POST …/users` answers one (the link shown once, e-mailed when an SMTP server is configured). An ' +
          'accepted, expired or unknown one is 404 USER-011.',
        params: InvitationParams,
        response: { 201: Envelope(Invitation), ...errorResponses() },
      },
    },
    async (req, reply) => {
      const inv = await resendInvitation(
        app.ctx.db,
        app.ctx,
        req.params.accountId,
        req.params.invitationId,
        req.actor,
      );
      return reply.code(201).send(ok(invitationAnswer(inv)));
    },
  );

  app.get(
    `${users}/:userId`,
    {
      config: { scope: 'users:read' },
      schema: {
        tags: ['users'],
        summary: 'Get a console user of the account',
        params: UserParams,
        response: { 200: Envelope(User), ...errorResponses() },
      },
    },
    async (req) => ok(await getUser(app.ctx.db, req.params.accountId, req.params.userId)),
  );

  app.put(
    `${users}/:userId`,
    {
      config: { scope: 'users:write' },
      schema: {
        tags: ['users'],
        summary: "Change a user's role in the account",
        description: 'The last administrator cannot be demoted (409 USER-007).',
        params: UserParams,
        body: ChangeRoleBody,
        response: { 200: Envelope(User), ...errorResponses() },
      },
    },
    async (req) =>
      ok(
        await changeRole(
          app.ctx.db,
          req.params.accountId,
          req.params.userId,
          req.body.role,
          req.actor,
          app.ctx.tokens,
        ),
      ),
  );

  app.delete(
    `${users}/:userId`,
    {
      config: { scope: 'users:write' },
      schema: {
        tags: ['users'],
        summary: 'Remove a user from the account',
        description:
          'The person keeps their other accounts. Their console tokens for this account stop within 5 minutes (the ' +
          'console token lifetime); the last administrator cannot be removed (409 USER-007). What acts in their ' +
          'name, or whose secret they saw, is cut off at once and answered in `data`: the API clients they created ' +
          'are revoked, the SMPP credentials they (or those clients) created are revoked and their binds closed, ' +
          'and the webhooks they created, pointed somewhere or rotated the secret of are paused until an ' +
          'administrator confirms them (`POST …/webhooks/{webhookId}/confirm`).',
        params: UserParams,
        response: { 200: Removal, ...errorResponses() },
      },
    },
    async (req) => ok(await removeUser(app.ctx.db, req.params.accountId, req.params.userId, app.ctx.tokens)),
  );

  app.get(
    clients,
    {
      config: { scope: 'clients:read' },
      schema: {
        tags: ['users'],
        summary: "List the account's API clients",
        description: 'Newest first; secrets are never shown again after creation.',
        params: IdParam('accountId'),
        querystring: PageQ,
        response: { 200: Collection(ApiClient), ...errorResponses() },
      },
    },
    async (req) =>
      page(
        await listAccountClients(app.ctx.db, req.params.accountId, req.query.offset, req.query.limit),
        (c) => c,
      ),
  );

  app.post(
    clients,
    {
      config: { scope: 'clients:write' },
      schema: {
        tags: ['users'],
        summary: 'Create an API client',
        description:
          'Answers the client with its `secret`, shown this once. `scopes` default to the caller’s and cannot exceed ' +
          'them (403 AUTH-004).',
        params: IdParam('accountId'),
        body: CreateClientBody,
        response: { 201: Envelope(ApiClientWithSecret), ...errorResponses() },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          ok(
            await createAccountClient(
              app.ctx.db,
              req.params.accountId,
              { ...req.body, hashCost: app.ctx.config.secretHashCost },
              req.grant!.scopes,
              req.actor,
            ),
          ),
        ),
  );

  app.delete(
    `${clients}/:clientId`,
    {
      config: { scope: 'clients:write' },
      schema: {
        tags: ['users'],
        summary: 'Revoke an API client',
        description:
          'It can no longer get tokens and the tokens it holds stop working (within 2 s on other processes).',
        params: ClientParams,
        response: { 200: Envelope(ApiClient), ...errorResponses() },
      },
    },
    async (req) =>
      ok(await revokeAccountClient(app.ctx.db, app.ctx.tokens, req.params.accountId, req.params.clientId)),
  );
}
