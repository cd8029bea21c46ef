import { Type } from '@sinclair/typebox';

export const TokenBody = Type.Object({
  grant_type: Type.Optional(Type.String({ description: 'Must be `client_credentials`.' })),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String({ description: 'Space-separated subset of the client’s scopes.' })),
});

export const TokenResponse = Type.Object({
  access_token: Type.String({ description: 'A signed JWT (EdDSA) to send as `Authorization: Bearer …`.' }),
  token_type: Type.Literal('bearer', {
    description:
      'Lower case, as the vendor answers and its clients expect; the scheme is case-insensitive (RFC 6749 §5.1, RFC 7235).',
  }),
  expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
  scope: Type.String(),
});
