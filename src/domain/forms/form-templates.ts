import type { FormFieldDef } from '../../db/queries/forms.ts';

/** A ready-made form in the built-in catalog (GET …/forms/templates; POST …/forms with templateId). */
export interface FormTemplate {
  id: string;
  name: string;
  category: string;
  description: string;
  fields: FormFieldDef[];
  confirmationMessage: string | null;
  consentText: string | null;
  submitLabel: string;
  successMessage: string;
  /** When the template entered the catalog (its `created` stamp; `sort=created` orders by it). */
  added: string;
}

const mobile: FormFieldDef = { name: 'mobile', label: 'Mobile number', type: 'tel', required: true };
const firstName: FormFieldDef = { name: 'firstName', label: 'First name', type: 'text', required: true };
const lastName: FormFieldDef = { name: 'lastName', label: 'Last name', type: 'text', required: false };
const email: FormFieldDef = { name: 'email', label: 'Email', type: 'email', required: false };

const MARKETING_CONSENT =
  'I agree to receive recurring marketing text messages at the number provided. Consent is not a ' +
  'condition of purchase. Message and data rates may apply. Reply STOP to opt out, HELP for help.';
const SERVICE_CONSENT =
  'I agree to receive text messages about my request at the number provided. Message and data rates ' +
  'may apply. Reply STOP to opt out.';

/** The catalog, in the order templates were added. */
export const FORM_TEMPLATES: readonly FormTemplate[] = [
  {
    id: 'newsletter-signup',
    name: 'Newsletter sign-up',
    category: 'marketing',
    description: 'Collect subscribers for a recurring SMS newsletter.',
    fields: [firstName, mobile, email],
    confirmationMessage:
      "Thanks {{{firstName}}}, you're subscribed to our SMS newsletter. Reply STOP to unsubscribe.",
    consentText: MARKETING_CONSENT,
    submitLabel: 'Subscribe',
    successMessage: "You're subscribed. Watch your phone for a confirmation text.",
    added: '2025-01-06T00:00:00.000Z',
  },
  {
    id: 'contest-entry',
    name: 'Contest entry',
    category: 'marketing',
    description: 'Enter people into a giveaway or sweepstakes and text them their confirmation.',
    fields: [firstName, { ...lastName, required: true }, mobile, { ...email, required: true }],
    confirmationMessage: "You're in, {{{firstName}}}! We'll text the winner when the contest closes.",
    consentText: MARKETING_CONSENT,
    submitLabel: 'Enter now',
    successMessage: "You're entered. Good luck!",
    added: '2025-01-13T00:00:00.000Z',
  },
  {
    id: 'appointment-request',
    name: 'Appointment request',
    category: 'scheduling',
    description: 'Let clients ask for an appointment at a preferred day and time of day.',
    fields: [
      firstName,
      lastName,
      mobile,
      { name: 'preferredDate', label: 'Preferred date', type: 'date', required: true },
      {
        name: 'preferredTime',
        label: 'Preferred time',
        type: 'select',
        required: true,
        options: ['Morning', 'Afternoon', 'Evening'],
      },
      { name: 'notes', label: 'Anything we should know?', type: 'textarea', required: false },
    ],
    confirmationMessage:
      'Hi {{{firstName}}}, we received your appointment request for {{{preferredDate}}} ({{{preferredTime}}}). ' +
      "We'll text you to confirm.",
    consentText: SERVICE_CONSENT,
    submitLabel: 'Request appointment',
    successMessage: 'Thanks! We will confirm your appointment by text.',
    added: '2025-01-20T00:00:00.000Z',
  },
  {
    id: 'event-registration',
    name: 'Event registration',
    category: 'events',
    description: 'Register attendees and the number of guests they bring.',
    fields: [
      firstName,
      lastName,
      mobile,
      email,
      { name: 'guests', label: 'Number of guests', type: 'number', required: false },
    ],
    confirmationMessage: "{{{firstName}}}, you're registered! We'll text you a reminder before the event.",
    consentText: SERVICE_CONSENT,
    submitLabel: 'Register',
    successMessage: "You're registered.",
    added: '2025-01-27T00:00:00.000Z',
  },
  {
    id: 'callback-request',
    name: 'Callback request',
    category: 'sales',
    description: 'Visitors leave their number and a topic; your team calls or texts back.',
    fields: [
      firstName,
      mobile,
      {
        name: 'topic',
        label: 'What is it about?',
        type: 'select',
        required: true,
        options: ['Sales', 'Support', 'Billing', 'Other'],
      },
    ],
    confirmationMessage: 'Thanks {{{firstName}}}, someone from our team will get back to you shortly.',
    consentText: SERVICE_CONSENT,
    submitLabel: 'Request a callback',
    successMessage: 'Thanks, we will be in touch shortly.',
    added: '2025-02-03T00:00:00.000Z',
  },
  {
    id: 'coupon-offer',
    name: 'Coupon offer',
    category: 'marketing',
    description: 'Trade a discount code, sent by text, for a marketing opt-in.',
    fields: [firstName, mobile],
    confirmationMessage:
      'Here is your coupon, {{{firstName}}}: show this text at checkout. Reply STOP to opt out.',
    consentText: MARKETING_CONSENT,
    submitLabel: 'Text me my coupon',
    successMessage: 'Your coupon is on its way by text.',
    added: '2025-02-10T00:00:00.000Z',
  },
  {
    id: 'feedback-survey',
    name: 'Feedback survey',
    category: 'feedback',
    description: 'Ask customers for a rating and comments.',
    fields: [
      firstName,
      mobile,
      {
        name: 'rating',
        label: 'How did we do?',
        type: 'select',
        required: true,
        options: ['5 - Excellent', '4 - Good', '3 - Okay', '2 - Poor', '1 - Bad'],
      },
      { name: 'comments', label: 'Comments', type: 'textarea', required: false },
    ],
    confirmationMessage: 'Thank you for your feedback, {{{firstName}}}!',
    consentText: null,
    submitLabel: 'Send feedback',
    successMessage: 'Thank you for your feedback.',
    added: '2025-02-17T00:00:00.000Z',
  },
  {
    id: 'quote-request',
    name: 'Quote request',
    category: 'sales',
    description: 'Capture leads asking for a price, with their company and project details.',
    fields: [
      firstName,
      { ...lastName, required: true },
      mobile,
      { ...email, required: true },
      { name: 'company', label: 'Company', type: 'text', required: false },
      { name: 'details', label: 'What do you need?', type: 'textarea', required: true },
    ],
    confirmationMessage: 'Thanks {{{firstName}}}, we got your request and will text you a quote soon.',
    consentText: SERVICE_CONSENT,
    submitLabel: 'Get a quote',
    successMessage: 'Thanks, your request is on its way to our team.',
    added: '2025-02-24T00:00:00.000Z',
  },
  {
    id: 'waitlist',
    name: 'Waitlist',
    category: 'marketing',
    description: 'Collect numbers of people to text when a product or table becomes available.',
    fields: [firstName, mobile],
    confirmationMessage: "You're on the list, {{{firstName}}}. We'll text you as soon as it's your turn.",
    consentText: SERVICE_CONSENT,
    submitLabel: 'Join the waitlist',
    successMessage: "You're on the waitlist.",
    added: '2025-03-03T00:00:00.000Z',
  },
  {
    id: 'loyalty-club',
    name: 'Loyalty club',
    category: 'marketing',
    description: 'Enrol members in a VIP or loyalty club, with their birthday for a yearly treat.',
    fields: [
      firstName,
      lastName,
      mobile,
      email,
      { name: 'birthday', label: 'Birthday', type: 'date', required: false },
    ],
    confirmationMessage: 'Welcome to the club, {{{firstName}}}! Members-only offers will arrive by text.',
    consentText: MARKETING_CONSENT,
    submitLabel: 'Join the club',
    successMessage: 'Welcome to the club!',
    added: '2025-03-10T00:00:00.000Z',
  },
];

/** A catalog template by id, or undefined. */
export function findFormTemplate(id: string): FormTemplate | undefined {
  return FORM_TEMPLATES.find((t) => t.id === id);
}
