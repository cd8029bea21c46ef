import { Type } from '@sinclair/typebox';
import { AuditStamp } from './common.ts';

export const SmppCredential = Type.Object({
  id: Type.String(),
  type: Type.Literal('smppCredential'),
  systemId: Type.String({ description: 'The `system_id` an ESME binds with.' }),
  name: Type.String(),
  throughput: Type.Integer({
    description:
      'submit_sm a second accepted across the binds of this credential (ESME_RTHROTTLED above it).',
  }),
  created: AuditStamp,
  revoked: Type.Optional(
    Type.Object(
      {
        at: Type.String({ format: 'date-time' }),
        reason: Type.String({ description: '`creator-removed`.' }),
        description: Type.String(),
      },
      {
        description:
          'Absent unless revoked. A revoked credential binds no more; delete it or keep it as a record.',
      },
    ),
  ),
});

/** The credential with its password: answered on creation only. */
export const SmppCredentialWithPassword = Type.Composite([
  SmppCredential,
  Type.Object({
    password: Type.String({
      description: 'The bind password (8 characters, the most SMPP 3.4 carries). Shown only now.',
    }),
  }),
]);

export const CreateSmppCredentialBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A label. Default `SMPP`.' })),
  throughput: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100_000,
      description:
        'submit_sm a second across its binds; the server default (SMPP_SERVER_THROUGHPUT) if absent.',
    }),
  ),
});
