import { Type } from '@sinclair/typebox';
import { MAX_VALIDITY_SECONDS, MIN_VALIDITY_SECONDS } from '../messaging/validity.ts';
import { AuditStamp } from './common.ts';

const SMART_ENCODING =
  'Smart encoding: typographic quotes, dashes, ellipses, non-breaking spaces and similar look-alikes are ' +
  'replaced by their GSM-7 equivalents before a text is counted, priced and sent, so that one curly quote ' +
  'does not turn a message into UCS-2 (70 characters a segment instead of 160). On by default; a send may ' +
  'turn it off for itself (`smartEncoding: false`).';

/** A validity period in seconds, within the bounds every send and account share. */
export const ValiditySeconds = (description: string) =>
  Type.Integer({ minimum: MIN_VALIDITY_SECONDS, maximum: MAX_VALIDITY_SECONDS, description });

const VALIDITY =
  `Default validity period of the account's messages, in seconds (${MIN_VALIDITY_SECONDS}..${MAX_VALIDITY_SECONDS}): ` +
  'a message not dispatched within it fails with MSG-012 and its price is refunded; the rest of it is handed to ' +
  'the carrier (SMPP `validity_period`, Twilio `ValidityPeriod`). Absent: no validity period.';

export const Account = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Type.String(),
  status: Type.String({ description: '`trial`, `paid` or `suspended`.' }),
  trial: Type.Boolean(),
  timezone: Type.String(),
  currency: Type.String(),
  smartEncoding: Type.Boolean({ description: SMART_ENCODING }),
  validityPeriod: Type.Optional(ValiditySeconds(VALIDITY)),
  dispatchWeight: Type.Integer({
    minimum: 1,
    maximum: 100,
    description:
      "The account's share of the shared dispatcher and carrier links against other accounts' (1 by " +
      'default: equal turns). Set by the operator (`sparrow accounts weight`), not through the API.',
  }),
  created: AuditStamp,
  updated: AuditStamp,
});

export const Balance = Type.Object({
  balance: Type.Number(),
  currency: Type.String(),
});

/** PUT …/accounts/{accountId}: the name, time zone and sending settings; absent fields stay as they are. */
export const AccountUpdateBody = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'The account’s name (1 to 100 characters): it leads the opt-out and help replies.',
      }),
    ),
    timezone: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'IANA time zone (e.g. Europe/Paris): quiet hours where a number does not tell, reports’ days.',
      }),
    ),
    smartEncoding: Type.Optional(Type.Boolean({ description: SMART_ENCODING })),
    // One schema of two types, not a union: the validator coerces types, and in a union a 0 would
    // pass as null (or a null as 0). Bounds are checked by updateAccount.
    validityPeriod: Type.Optional(
      Type.Unsafe<number | null>({
        type: ['integer', 'null'],
        description: `${VALIDITY} \`null\` removes the default.`,
      }),
    ),
  },
  { additionalProperties: false },
);
