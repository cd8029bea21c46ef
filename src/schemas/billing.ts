import { Type } from '@sinclair/typebox';
import { AuditStamp, ErrorObject, LiteralUnion, PageQuery } from './common.ts';
import { FREQUENCIES, MAX_COMMITMENT, PLAN_IDS, PLANS } from './plans.ts';

const text = (max: number) => Type.Optional(Type.String({ maxLength: max }));

const RedirectUrl = (what: string) =>
  Type.String({
    // Not format `uri`: the `{CHECKOUT_SESSION_ID}` placeholder is not RFC 3986; createCheckout parses it.
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+\\S*$',
    maxLength: 2048,
    description: `Where the payer goes after ${what} checkout (absolute http(s) URL; \`{CHECKOUT_SESSION_ID}\` is filled in).`,
  });

export const CheckoutQuery = Type.Object({
  successUrl: RedirectUrl('a successful'),
  cancelUrl: RedirectUrl('a cancelled'),
});

export const CheckoutBody = Type.Object({
  plan: LiteralUnion(PLAN_IDS, {
    description: `The paid plan: ${PLAN_IDS.map((id) => `\`${id}\` (minimum commitment ${PLANS[id].minimumCommitment})`).join(', ')}.`,
  }),
  commitment: Type.Integer({
    minimum: 1,
    maximum: MAX_COMMITMENT,
    description: `Amount paid per billing period, in whole units of the account currency; credited to the balance. At most ${MAX_COMMITMENT} (400 above it).`,
  }),
  frequency: LiteralUnion(FREQUENCIES, { description: 'How often the commitment is paid.' }),
  name: Type.String({ minLength: 1, maxLength: 200, description: 'The billing name.' }),
  email: Type.String({ format: 'email', maxLength: 254, description: 'The billing email address.' }),
  address: Type.Optional(
    Type.Object({
      line1: text(200),
      line2: text(200),
      city: text(100),
      state: text(100),
      postalCode: text(20),
    }),
  ),
  tax: Type.Optional(Type.Object({ type: text(50), id: text(100) })),
  segmentUnderstanding: Type.Optional(
    Type.Boolean({
      description: 'The customer confirmed they understand how messages are split into segments.',
    }),
  ),
});

export const CheckoutUrl = Type.String({
  format: 'uri',
  description: 'The checkout page to send the payer to.',
});

export const AutoTopupBody = Type.Object({
  threshold: Type.Number({
    minimum: 0,
    maximum: 1_000_000,
    description: 'Top up when the balance falls below this (rounded to cents).',
  }),
  amount: Type.Number({
    minimum: 1,
    maximum: 100_000,
    description: 'What one top-up charges and credits (rounded to cents).',
  }),
  maxPerMonth: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description: 'At most this many top-ups per calendar month (UTC); default 5.',
    }),
  ),
});

export const Topup = Type.Object({
  id: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  nextAttempt: Type.Optional(
    Type.String({ format: 'date-time', description: 'When a pending top-up is tried next.' }),
  ),
  error: Type.Optional(ErrorObject),
  created: Type.String({ format: 'date-time' }),
  completed: Type.Optional(Type.String({ format: 'date-time' })),
});

export const AutoTopup = Type.Object({
  enabled: Type.Boolean(),
  threshold: Type.Optional(Type.Number()),
  amount: Type.Optional(Type.Number()),
  maxPerMonth: Type.Optional(Type.Integer()),
  topupsThisMonth: Type.Integer({
    description: 'Top-ups this calendar month that count against the maximum.',
  }),
  paymentMethod: Type.Optional(
    Type.Object(
      { provider: Type.String(), id: Type.String() },
      { description: 'Saved by the last completed checkout.' },
    ),
  ),
  recentTopups: Type.Array(Topup),
  updated: Type.Optional(AuditStamp),
});

const TransactionType = Type.Union(
  [Type.Literal('checkout'), Type.Literal('topup'), Type.Literal('send'), Type.Literal('message')],
  {
    description:
      '`checkout` and `topup` credit the balance; `send` (a bulk send, net of refunds) and `message` (a single message) debit it.',
  },
);

export const Transaction = Type.Object({
  id: Type.String(),
  type: TransactionType,
  direction: Type.Union([Type.Literal('credit'), Type.Literal('debit')]),
  amount: Type.Number({ description: 'Positive for credits, negative for debits.' }),
  balanceAfter: Type.Optional(
    Type.Number({ description: 'The balance right after a credit (left out for debits).' }),
  ),
  reference: Type.String({ description: 'The checkout session, top-up, send job or message.' }),
  description: Type.String(),
  created: AuditStamp,
});

export const TransactionListQuery = Type.Object({ ...PageQuery, type: Type.Optional(TransactionType) });
