import type { DefinitionInput } from './definition.ts';
import {
  branch,
  check,
  contactCreated,
  end,
  keyword,
  manual,
  path,
  replied,
  STOP,
  send,
  setAttribute,
  wait,
} from './template-nodes.ts';

/**
 * A ready-made workflow in the built-in catalog (GET …/workflowtemplates; POST …/workflows with
 * `templateId`). Its definition is written as a request would give it (`type: {id}`), so creating
 * a workflow from it goes through the same validation as any other definition.
 */
export interface WorkflowTemplate {
  id: string;
  name: string;
  category: string;
  description: string;
  definition: DefinitionInput;
  /** When the template entered the catalog (its `created` stamp; `sort=created` orders by it). */
  added: string;
}

// Templates name no list or sender group: those are an account's own (add them after creating).
// Attributes they read or set (appointmentDate, paymentStatus, …) are ordinary contact attributes.

/** The catalog, in the order templates were added. */
export const WORKFLOW_TEMPLATES: readonly WorkflowTemplate[] = [
  {
    id: 'welcome-series',
    name: 'Welcome series',
    category: 'onboarding',
    description:
      'Greets every new contact, then follows up with tips a day later and an offer three days after that.',
    definition: {
      nodes: [
        contactCreated(),
        send('welcome', `Welcome, {{{firstName}}}! Thanks for joining us. ${STOP}`),
        wait('wait-1-day', { days: 1 }),
        send(
          'tips',
          'Hi {{{firstName}}}, a quick tip to get the most out of your membership: reply anytime with a question.',
        ),
        wait('wait-3-days', { days: 3 }),
        send('offer', 'As a new member, {{{firstName}}}, enjoy 10% off your first order this week.'),
        end(),
      ],
      edges: path('start', 'welcome', 'wait-1-day', 'tips', 'wait-3-days', 'offer', 'end'),
    },
    added: '2025-04-07T00:00:00.000Z',
  },
  {
    id: 'appointment-reminder',
    name: 'Appointment reminder',
    category: 'scheduling',
    description:
      'Reminds a contact of an appointment (the date and time from their custom fields appointmentDate and ' +
      'appointmentTime) and asks them to confirm; a reply marks it confirmed, no reply within a day sends a second reminder.',
    definition: {
      nodes: [
        manual(),
        send(
          'remind',
          'Hi {{{firstName}}}, a reminder of your appointment on {{{appointmentDate}}} at {{{appointmentTime}}}. ' +
            'Reply C to confirm.',
        ),
        replied('await-confirmation', { days: 1 }),
        setAttribute('confirmed', 'appointmentConfirmed', 'yes'),
        send('thanks', 'Thanks {{{firstName}}}, your appointment is confirmed. See you then!'),
        send(
          'remind-again',
          'Hi {{{firstName}}}, we have not heard back: your appointment is on {{{appointmentDate}}} at ' +
            '{{{appointmentTime}}}. Reply C to confirm or call us to reschedule.',
        ),
        end(),
      ],
      edges: [
        ...path('start', 'remind', 'await-confirmation'),
        ...branch('await-confirmation', 'confirmed', 'remind-again'),
        ...path('confirmed', 'thanks', 'end'),
        ...path('remind-again', 'end'),
      ],
    },
    added: '2025-04-14T00:00:00.000Z',
  },
  {
    id: 'keyword-double-opt-in',
    name: 'Keyword opt-in with double opt-in',
    category: 'compliance',
    description:
      'Someone texts JOIN; the workflow asks them to confirm. A reply within two days sets smsOptIn to ' +
      '"confirmed" and welcomes them; otherwise smsOptIn is "unconfirmed". STOP opts out at any time.',
    definition: {
      nodes: [
        keyword('JOIN'),
        send(
          'ask-confirmation',
          'Reply Y to confirm you want texts from us. Msg & data rates may apply. Reply STOP to cancel.',
        ),
        replied('await-confirmation', { days: 2 }),
        setAttribute('opt-in-confirmed', 'smsOptIn', 'confirmed'),
        send('welcome', `You're subscribed, thanks! ${STOP}`),
        setAttribute('opt-in-unconfirmed', 'smsOptIn', 'unconfirmed'),
        end(),
      ],
      edges: [
        ...path('start', 'ask-confirmation', 'await-confirmation'),
        ...branch('await-confirmation', 'opt-in-confirmed', 'opt-in-unconfirmed'),
        ...path('opt-in-confirmed', 'welcome', 'end'),
        ...path('opt-in-unconfirmed', 'end'),
      ],
    },
    added: '2025-04-21T00:00:00.000Z',
  },
  {
    id: 're-engagement',
    name: 'Re-engagement',
    category: 'marketing',
    description:
      'Checks in with a quiet contact: a reply within a week sets engagement to "active" and thanks them; ' +
      'silence sets it to "inactive".',
    definition: {
      nodes: [
        manual(),
        send(
          'check-in',
          `Hi {{{firstName}}}, we haven't heard from you in a while. Reply with anything to keep hearing from us. ${STOP}`,
        ),
        replied('await-reply', { days: 7 }),
        setAttribute('engaged', 'engagement', 'active'),
        send('thanks', 'Great to hear from you, {{{firstName}}}! Watch this space for our next update.'),
        setAttribute('not-engaged', 'engagement', 'inactive'),
        end(),
      ],
      edges: [
        ...path('start', 'check-in', 'await-reply'),
        ...branch('await-reply', 'engaged', 'not-engaged'),
        ...path('engaged', 'thanks', 'end'),
        ...path('not-engaged', 'end'),
      ],
    },
    added: '2025-04-28T00:00:00.000Z',
  },
  {
    id: 'birthday-greeting',
    name: 'Birthday greeting',
    category: 'marketing',
    description:
      'Start it for a contact on their birthday (Enroll on the workflow’s page, or from your own system): a ' +
      'greeting with a treat, and a reminder five days later unless they have used the treat.',
    definition: {
      nodes: [
        manual(),
        send('greeting', 'Happy birthday, {{{firstName}}}! Enjoy 20% off this week: just show this text.'),
        wait('wait-5-days', { days: 5 }),
        check('redeemed', 'birthdayTreatRedeemed', 'yes'),
        send('reminder', 'Hi {{{firstName}}}, your birthday treat expires in two days. Treat yourself!'),
        end(),
      ],
      edges: [
        ...path('start', 'greeting', 'wait-5-days', 'redeemed'),
        ...branch('redeemed', 'end', 'reminder'),
        ...path('reminder', 'end'),
      ],
    },
    added: '2025-05-05T00:00:00.000Z',
  },
  {
    id: 'review-request',
    name: 'Review request',
    category: 'feedback',
    description:
      'Two hours after a visit, asks for a review (attribute reviewLink); three days later reminds those ' +
      'whose reviewLeft is not "yes".',
    definition: {
      nodes: [
        manual(),
        wait('wait-2-hours', { hours: 2 }),
        send(
          'ask',
          'Thanks for visiting, {{{firstName}}}! Would you leave us a quick review? {{{reviewLink}}}',
        ),
        wait('wait-3-days', { days: 3 }),
        check('reviewed', 'reviewLeft', 'yes'),
        send(
          'reminder',
          'Hi {{{firstName}}}, your review helps others find us. It takes a minute: {{{reviewLink}}}',
        ),
        end(),
      ],
      edges: [
        ...path('start', 'wait-2-hours', 'ask', 'wait-3-days', 'reviewed'),
        ...branch('reviewed', 'end', 'reminder'),
        ...path('reminder', 'end'),
      ],
    },
    added: '2025-05-12T00:00:00.000Z',
  },
  {
    id: 'abandoned-cart',
    name: 'Abandoned-cart nudge',
    category: 'ecommerce',
    description:
      'An hour after a shopper leaves a cart (your shop starts it for them, with the cart’s link and a coupon as ' +
      'custom fields), a nudge; a day later a discount if the cart is still open.',
    definition: {
      nodes: [
        manual(),
        wait('wait-1-hour', { hours: 1 }),
        send('nudge', 'Hi {{{firstName}}}, you left something in your cart: {{{cartUrl}}}'),
        wait('wait-1-day', { days: 1 }),
        check('still-open', 'cartStatus', 'open'),
        send(
          'discount',
          `Still thinking it over? Take 10% off with code {{{cartCoupon}}}: {{{cartUrl}}} ${STOP}`,
        ),
        end(),
      ],
      edges: [
        ...path('start', 'wait-1-hour', 'nudge', 'wait-1-day', 'still-open'),
        ...branch('still-open', 'discount', 'end'),
        ...path('discount', 'end'),
      ],
    },
    added: '2025-05-19T00:00:00.000Z',
  },
  {
    id: 'event-rsvp',
    name: 'Event RSVP',
    category: 'events',
    description:
      'Someone texts RSVP; the workflow asks them to reply to hold a spot. A reply within three days sets rsvp ' +
      'to "yes" and confirms; otherwise rsvp is "no-answer".',
    definition: {
      nodes: [
        keyword('RSVP'),
        send('ask', 'Thanks for your interest in {{{eventName}}}! Reply Y to reserve your spot.'),
        replied('await-reply', { days: 3 }),
        setAttribute('going', 'rsvp', 'yes'),
        send('confirm', "You're on the list, {{{firstName}}}. We'll text you a reminder the day before."),
        setAttribute('no-answer', 'rsvp', 'no-answer'),
        end(),
      ],
      edges: [
        ...path('start', 'ask', 'await-reply'),
        ...branch('await-reply', 'going', 'no-answer'),
        ...path('going', 'confirm', 'end'),
        ...path('no-answer', 'end'),
      ],
    },
    added: '2025-05-26T00:00:00.000Z',
  },
  {
    id: 'payment-reminder',
    name: 'Payment reminder',
    category: 'billing',
    description:
      'Tells a contact an invoice is due (its number, amount, due date and payment link from their custom ' +
      'fields); three days later thanks them if it is paid, else sends an overdue notice.',
    definition: {
      nodes: [
        manual(),
        send(
          'notice',
          'Hi {{{firstName}}}, invoice {{{invoiceNumber}}} for {{{amountDue}}} is due on {{{dueDate}}}. ' +
            'Pay here: {{{paymentLink}}}',
        ),
        wait('wait-3-days', { days: 3 }),
        check('paid', 'paymentStatus', 'paid'),
        send('thanks', 'Thanks {{{firstName}}}, we received your payment for invoice {{{invoiceNumber}}}.'),
        send(
          'overdue',
          'Hi {{{firstName}}}, invoice {{{invoiceNumber}}} for {{{amountDue}}} is now overdue. ' +
            'Please pay at {{{paymentLink}}} or reply if you need help.',
        ),
        end(),
      ],
      edges: [
        ...path('start', 'notice', 'wait-3-days', 'paid'),
        ...branch('paid', 'thanks', 'overdue'),
        ...path('thanks', 'end'),
        ...path('overdue', 'end'),
      ],
    },
    added: '2025-06-02T00:00:00.000Z',
  },
  {
    id: 'win-back',
    name: 'Win-back offer',
    category: 'marketing',
    description:
      'Offers a lapsed customer a discount; two weeks later marks customerStatus "won-back" if ' +
      'winBackRedeemed is "yes", else sends a last-chance reminder.',
    definition: {
      nodes: [
        manual(),
        send(
          'offer',
          `We miss you, {{{firstName}}}! Come back this month for 15% off with code WELCOMEBACK. ${STOP}`,
        ),
        wait('wait-14-days', { days: 14 }),
        check('redeemed', 'winBackRedeemed', 'yes'),
        setAttribute('won-back', 'customerStatus', 'won-back'),
        send(
          'last-chance',
          'Last chance, {{{firstName}}}: your 15% off (code WELCOMEBACK) ends in three days.',
        ),
        end(),
      ],
      edges: [
        ...path('start', 'offer', 'wait-14-days', 'redeemed'),
        ...branch('redeemed', 'won-back', 'last-chance'),
        ...path('won-back', 'end'),
        ...path('last-chance', 'end'),
      ],
    },
    added: '2025-06-09T00:00:00.000Z',
  },
  {
    id: 'nps-survey',
    name: 'NPS survey',
    category: 'feedback',
    description:
      'Asks the Net Promoter question (0–10 by reply); thanks those who answer within three days and reminds ' +
      'the others once.',
    definition: {
      nodes: [
        manual(),
        send(
          'ask',
          'Hi {{{firstName}}}, how likely are you to recommend us to a friend? Reply with a number from 0 to 10.',
        ),
        replied('await-answer', { days: 3 }),
        send('thanks', 'Thank you, {{{firstName}}}! Your answer helps us improve.'),
        send(
          'reminder',
          'Hi {{{firstName}}}, one quick question: from 0 to 10, how likely are you to recommend us?',
        ),
        end(),
      ],
      edges: [
        ...path('start', 'ask', 'await-answer'),
        ...branch('await-answer', 'thanks', 'reminder'),
        ...path('thanks', 'end'),
        ...path('reminder', 'end'),
      ],
    },
    added: '2025-06-16T00:00:00.000Z',
  },
  {
    id: 'lead-follow-up',
    name: 'Lead follow-up',
    category: 'sales',
    description:
      'Someone texts QUOTE: the workflow marks leadStatus "new", asks for the best time to call, and follows ' +
      'up after a day without an answer.',
    definition: {
      nodes: [
        keyword('QUOTE'),
        setAttribute('mark-lead', 'leadStatus', 'new'),
        send('ask', 'Thanks for reaching out! When is the best time for us to call you? Just reply here.'),
        replied('await-reply', { days: 1 }),
        send(
          'follow-up',
          'Hi {{{firstName}}}, just checking in: reply with a good time and we will call you.',
        ),
        end(),
      ],
      edges: [
        ...path('start', 'mark-lead', 'ask', 'await-reply'),
        ...branch('await-reply', 'end', 'follow-up'),
        ...path('follow-up', 'end'),
      ],
    },
    added: '2025-06-23T00:00:00.000Z',
  },
];

/** A catalog template by id, or undefined. */
export function findWorkflowTemplate(id: string): WorkflowTemplate | undefined {
  return WORKFLOW_TEMPLATES.find((t) => t.id === id);
}
