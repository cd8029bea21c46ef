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

const REPLIES =
  'The texts sent back to the compliance keywords, each at most 1,600 characters: `optOut` confirms STOP (and its ' +
  'synonyms) and must say that no more messages will be sent; `optIn` confirms START and `help` answers HELP, and ' +
  'both must say how to opt out (the word STOP). Merge fields: `{{{accountName}}}` (the account’s name at the time ' +
  'of the reply) and the texter’s `{{{firstName}}}`, `{{{lastName}}}`, `{{{email}}}`, `{{{mobile}}}`, ' +
  '`{{{country}}}`; any other merge field is refused.';

/** The STOP, START and HELP replies in effect. */
export const KeywordReplies = Type.Object(
  {
    optOut: Type.String({ description: 'The STOP confirmation.' }),
    optIn: Type.String({ description: 'The START confirmation.' }),
    help: Type.String({ description: 'The HELP reply.' }),
  },
  {
    description:
      `${REPLIES} An account that never set one has the default wording, shown here: ` +
      '“{{{accountName}}}: You are unsubscribed and will receive no further messages. Reply START to resubscribe.”, ' +
      '“{{{accountName}}}: You are subscribed again. Reply HELP for help, STOP to unsubscribe.” and ' +
      '“{{{accountName}}}: Reply STOP to unsubscribe. Msg & data rates may apply.”',
  },
);

/** A reply to change: its text, or null for the default wording. */
const ReplyUpdate = (description: string) =>
  Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      maxLength: 4000,
      description: `${description} \`null\` goes back to the default wording.`,
    }),
  );

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
  keywordReplies: KeywordReplies,
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
          'IANA time zone (e.g. Europe/Paris): quiet hours where a number does not tell, reports’ days, the days ' +
          'of numbers’ and groups’ daily caps (`dailyCap`).',
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
    keywordReplies: Type.Optional(
      Type.Object(
        {
          optOut: ReplyUpdate('The STOP confirmation.'),
          optIn: ReplyUpdate('The START confirmation.'),
          help: ReplyUpdate('The HELP reply.'),
        },
        {
          additionalProperties: false,
          description: `${REPLIES} Replies left out stay as they are; a refused one is 400 VAL-001 naming it, and nothing changes.`,
        },
      ),
    ),
  },
  { additionalProperties: false },
);
