import { Type } from '@sinclair/typebox';
import { Id, PageQuery } from './common.ts';

const Period = {
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'Start (inclusive); default 30 days before `to`.' }),
  ),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'End (exclusive); default now.' })),
};

/** The period of a report about one record (GET …/reports/{kind}/{id}). */
export const ReportPeriodQuery = Type.Object(Period, { additionalProperties: false });

export const ReportQuery = Type.Object(
  {
    ...Period,
    campaignId: Type.Optional(Id('Only this campaign’s messages, and its recipients’ replies and opt-outs.')),
    jobId: Type.Optional(Id('Only this send’s messages, and its recipients’ replies and opt-outs.')),
  },
  { additionalProperties: false },
);

const Figures = {
  sent: Type.Integer({
    description: 'Outgoing messages handed to a carrier (sent, delivered or undelivered now).',
  }),
  delivered: Type.Integer({ description: 'Outgoing messages with a delivery receipt.' }),
  failed: Type.Integer({
    description:
      'Outgoing messages failed or undelivered (not those to opted-out or blocked recipients: `optedOut`).',
  }),
  optedOut: Type.Integer({
    description: 'Messages not sent because the recipient had opted out or is blocked (CONT-010), uncharged.',
  }),
  replies: Type.Integer({
    description:
      'Inbound texts (of a campaign’s, send’s or automation’s recipients: after their first message of it).',
  }),
  optOuts: Type.Integer({
    description:
      'Contacts who texted an opt-out keyword (of a campaign’s, send’s or automation’s recipients: after their first message of it).',
  }),
  clicks: Type.Integer({ description: 'Clicks on tracked links.' }),
  spend: Type.Number({ description: 'Price of the outgoing messages, in the account currency.' }),
};

export const Report = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  timezone: Type.String({ description: 'The account’s time zone: days are counted in it.' }),
  campaignId: Type.Optional(Type.String()),
  jobId: Type.Optional(Type.String()),
  dripId: Type.Optional(Type.String()),
  workflowId: Type.Optional(Type.String()),
  totals: Type.Object({
    ...Figures,
    deliveryRate: Type.Number({ description: 'delivered ÷ sent (0 when nothing was sent).' }),
  }),
  balance: Type.Number(),
  currency: Type.String(),
  queued: Type.Integer({ description: 'Messages waiting to be dispatched now (queue depth).' }),
  days: Type.Array(Type.Object({ day: Type.String({ format: 'date' }), ...Figures })),
});

/** GET …/reports/campaigns: the period and a page of the campaigns. */
export const CampaignComparisonQuery = Type.Object(
  { ...Period, ...PageQuery },
  { additionalProperties: false },
);

/** One campaign beside the others: its campaign report's totals for the period. */
export const CampaignComparisonRow = Type.Object({
  campaignId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], {
    description: 'The campaign’s name; null when it was deleted since (its messages remain).',
  }),
  firstSentAt: Type.String({ format: 'date-time', description: 'Its first message in the period.' }),
  sent: Figures.sent,
  delivered: Figures.delivered,
  deliveryRate: Type.Number({ description: 'delivered ÷ sent (0 when nothing was sent).' }),
  failed: Figures.failed,
  optedOut: Figures.optedOut,
  replies: Type.Integer({ description: 'Inbound texts of its recipients after their first message of it.' }),
  optOuts: Type.Integer({ description: 'Opt-outs of its recipients after their first message of it.' }),
  clicks: Type.Integer({ description: 'Clicks on the links shortened in its texts.' }),
  spend: Type.Number({ description: 'Price of its outgoing messages, in `currency`.' }),
  currency: Type.String({ description: 'The account’s currency.' }),
});
