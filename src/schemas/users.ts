import { Type } from '@sinclair/typebox';
import { PLAIN_EMAIL } from '../util/email.ts';
import { AuditStamp, Envelope, IdParam, LiteralUnion } from './common.ts';
import { ROLES } from './enums.ts';
import { SCOPES } from './scopes.ts';
import { SmppCredential } from './smpp.ts';
import { Webhook } from './webhooks.ts';

export const Role = LiteralUnion(ROLES, {
  description: 'Administrator: everything; Member: no API credentials, billing or users; Viewer: reads only.',
});

/** One mailbox (PLAIN_EMAIL): nothing an e-mail address parser could read as a name or a second address. */
const Email = Type.String({ minLength: 3, maxLength: 320, pattern: PLAIN_EMAIL.source });

/** A console user as a member of an account (the interface's User shape, plus `active`). */
export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  role: Type.String({ description: '`Administrator`, `Member` or `Viewer`.' }),
  tacAccepted: Type.Optional(
    Type.String({ format: 'date-time', description: 'When the terms were accepted.' }),
  ),
  active: Type.Boolean({ description: 'False until the person has set a password (an open invitation).' }),
  created: AuditStamp,
  updated: AuditStamp,
});

export const UserParams = IdParam('accountId', 'userId');

export const InviteUserBody = Type.Object({ email: Email, role: Role }, { additionalProperties: false });

export const Invitation = Type.Object({
  email: Type.String(),
  role: Type.String(),
  link: Type.String({ description: 'Shown once: the person opens it to set a password and join.' }),
  expires: Type.String({ format: 'date-time' }),
  emailStatus: LiteralUnion(['none', 'sent', 'failed'] as const, {
    description:
      '`sent`: the SMTP server (`SMTP_URL`) took the e-mail with the link; `failed`: it did not (`emailError`); ' +
      '`none`: no SMTP server is configured. In every case the link above works: pass it on when not `sent`.',
  }),
  emailError: Type.Optional(Type.String({ description: 'Why the e-mail was not sent (`failed`).' })),
});

/** An invitation not yet accepted (its link is never shown again: resending makes a new one). */
export const OpenInvitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Type.String(),
  expires: Type.String({ format: 'date-time' }),
  emailStatus: LiteralUnion(['none', 'sending', 'sent', 'failed'] as const, {
    description: 'What became of its e-mail (`none`: no SMTP server, the link was passed on by hand).',
  }),
  created: AuditStamp,
});

export const InvitationParams = Type.Object({
  accountId: IdParam('accountId').properties.accountId,
  invitationId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const ChangeRoleBody = Type.Object({ role: Role }, { additionalProperties: false });

const PASSWORD = Type.String({ minLength: 1, maxLength: 1024 });

export const SignInBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 320 }), password: PASSWORD },
  { additionalProperties: false },
);

export const ConsoleSession = Type.Object({
  user: Type.Object({
    id: Type.String(),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    tacAccepted: Type.Optional(Type.String()),
  }),
  accounts: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), role: Type.String() })),
  csrfToken: Type.String({
    description: 'Send it back in `X-CSRF-Token` on every state-changing session request.',
  }),
});

export const ConsoleTokenBody = Type.Object(
  { accountId: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

export const ConsoleToken = Type.Object({
  access_token: Type.String(),
  token_type: Type.String(),
  expires_in: Type.Integer(),
  scope: Type.String(),
  role: Type.String(),
});

export const InvitationToken = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

export const InvitationInfo = Type.Object({
  email: Type.String(),
  role: Type.String(),
  kind: Type.String({ description: '`invite` or `reset`.' }),
  account: Type.Object({ id: Type.String(), name: Type.String() }),
  expires: Type.String({ format: 'date-time' }),
});

export const AcceptInvitationBody = Type.Object(
  {
    password: Type.Optional(PASSWORD),
    hasPassword: Type.Optional(
      Type.Boolean({
        description:
          '`true`: `password` is the person’s existing Sparrow password (checked as a sign-in, never set). ' +
          'Without it, an e-mail that has a password must give it, and one that has none sets it.',
      }),
    ),
    firstName: Type.Optional(Type.String({ maxLength: 100 })),
    lastName: Type.Optional(Type.String({ maxLength: 100 })),
    acceptTerms: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** An API client of the account (its secret is shown once, at creation). */
export const ApiClient = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  revoked: Type.Boolean(),
  revokedAt: Type.Optional(Type.String({ format: 'date-time' })),
  revokedReason: Type.Optional(
    Type.String({
      description:
        '`creator-removed`: the person who created it (and so saw its secret) left the account. Absent when revoked by hand.',
    }),
  ),
  created: Type.String({ format: 'date-time' }),
  createdBy: Type.Optional(
    Type.Object(
      {
        id: Type.Optional(Type.String()),
        name: Type.Optional(Type.String()),
        email: Type.Optional(Type.String()),
        source: Type.Optional(Type.String()),
      },
      {
        description:
          'Who created it (was shown its secret); absent for clients created before this was recorded.',
      },
    ),
  ),
});

/** The answer of removing a member: what acted in their name, cut off now. */
export const Removal = Envelope(
  Type.Object(
    {
      smppCredentials: Type.Array(SmppCredential, { description: 'Revoked now: they bind no more.' }),
      apiClients: Type.Array(ApiClient, { description: 'Revoked now.' }),
      webhooks: Type.Array(Webhook, { description: 'Paused now, until an administrator confirms them.' }),
    },
    {
      description:
        'What the person created, or was shown the secret of, that acts as the account: cut off with their membership.',
    },
  ),
);

export const ApiClientWithSecret = Type.Object({
  ...ApiClient.properties,
  secret: Type.String({ description: 'Shown once: store it now.' }),
});

export const CreateClientBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Optional(
      Type.Array(LiteralUnion(SCOPES), {
        maxItems: SCOPES.length,
        uniqueItems: true,
        description: 'Defaults to every scope the caller has; never more than the caller has.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ClientParams = Type.Object({
  accountId: IdParam('accountId').properties.accountId,
  clientId: Type.String({ minLength: 1, maxLength: 100 }),
});
