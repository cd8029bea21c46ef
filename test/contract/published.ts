/**
 * The operations of the vendor's published description (OpenAPI 3.0, version 1.0.1; facts in
 * spec/compatibility.md): for each, its method and path, its own sample request, the status it is
 * published with, and the shape of its answer (field names and JSON types). Walked by
 * published-description.test.ts against a running service. Not a test file itself.
 *
 * Field names and types follow the description (and its generated clients: `Contact`, `Message`,
 * `Conversation`, `SendMessagesResponseData`, `ContactUploadResponseData`, `ShareFileResponseData`,
 * `PaginatedResponsePagination`, `TokenResponse`); where it and the interface document differ, the
 * interface document wins (docs/interface.md, "Where the published description and the interface
 * differ").
 */
import type { Shape } from './shape.ts';

// ---- Shapes ----

const Stamp: Shape = { '!at': 'timestamp', by: 'object' };
const Err: Shape = { '!code': 'string', description: 'string' };
const Mobile: Shape = {
  country: 'string',
  '!number': 'string',
  verified: 'timestamp',
  valid: 'boolean',
  lineType: 'string',
};
const Tag: Shape = { '!tag': 'string', visible: 'boolean' };
const MediaItem: Shape = { url: 'string', type: 'string', name: 'string', filename: 'string' };
/** The contact as a Message or Conversation names it (ContactIdentifiers). */
const ContactIdentifiers: Shape = {
  '!id': 'string',
  firstName: 'string',
  lastName: 'string',
  email: 'string',
  mobile: Mobile,
};
export const Contact: Shape = {
  '!id': 'string',
  email: 'string',
  firstName: 'string',
  lastName: 'string',
  '!mobile': Mobile,
  lists: [{ '!id': 'string', name: 'string', optIn: 'timestamp', optOut: 'timestamp' }],
  attributes: 'object',
  tags: [Tag],
  optIn: 'timestamp',
  blocked: 'timestamp',
  valid: 'boolean',
  error: Err,
  '!created': Stamp,
  '!updated': Stamp,
};
export const Message: Shape = {
  '!id': 'string',
  // Left out only for a message to a number that is not valid (no contact exists for it).
  contact: { ...ContactIdentifiers, '!mobile': Mobile },
  conversation: { '!id': 'string' },
  '!phoneNumber': 'string',
  message: 'string',
  template: 'string',
  '!media': [MediaItem],
  '!outgoing': 'boolean',
  '!status': 'string',
  '!segments': 'number',
  '!price': 'number',
  '!read': 'boolean',
  error: Err,
  '!created': Stamp,
  '!updated': Stamp,
};
export const Conversation: Shape = {
  '!id': 'string',
  '!contact': ContactIdentifiers,
  '!phoneNumber': { id: 'string', '!number': 'string', country: 'string', '!active': 'boolean' },
  lastMessage: Message,
  '!unread': ['string'],
  '!closed': 'boolean',
  '!created': Stamp,
  '!updated': Stamp,
};
export const Pagination: Shape = {
  '!limit': 'integer',
  '!offset': 'integer',
  '!hasNext': 'boolean',
  '!totalCount': 'integer',
};
const Template: Shape = {
  '!id': 'string',
  '!name': 'string',
  '!type': 'string',
  '!template': 'string',
  media: [MediaItem],
  created: Stamp,
  updated: Stamp,
};
const AttributeFilter: Shape = { attribute: 'string', comparator: 'string', value: ['string'] };
const Job: Shape = {
  '!id': 'string',
  submitted: 'integer',
  status: 'string',
  price: 'number',
  failures: 'integer',
  invalid: ['object'],
  created: Stamp,
};
const Campaign: Shape = {
  '!id': 'string',
  '!name': 'string',
  description: 'string',
  fieldMappings: [{ attribute: 'string', column: 'string', mandatory: 'boolean' }],
  filters: { list: 'object', q: 'string', attributes: [AttributeFilter], tags: [Tag] },
  media: [MediaItem],
  phoneNumberFilter: { group: { '!id': 'string' } },
  schedule: { frequency: 'string', timezone: 'string', cron: 'string' },
  nextExecution: 'string',
  reporting: { destination: 'string', when: 'string', delay: 'string', unit: 'string' },
  template: 'string',
  '!trigger': { '!code': 'string', name: 'string' },
  '!created': Stamp,
  '!updated': Stamp,
  paused: 'string',
  lastJob: Job,
};
const LeadForm: Shape = {
  '!id': 'string',
  '!name': 'string',
  '!impressions': 'integer',
  '!conversions': 'integer',
  active: 'timestamp',
  '!created': Stamp,
  '!updated': Stamp,
};
const Link: Shape = { '!id': 'string', '!name': 'string', '!url': 'string', created: Stamp, updated: Stamp };
const LinkSource: Shape = { '!id': 'string', '!type': 'string', '!shortUrl': 'string', '!clicks': 'integer' };
const AvailableNumber: Shape = {
  '!number': 'string',
  '!country': 'string',
  type: 'string',
  supportedDestinations: ['string'],
};
const Person: Shape = { id: 'string', email: 'string', firstName: 'string', lastName: 'string' };
const MeetingEvent: Shape = {
  '!id': 'string',
  '!name': 'string',
  description: 'string',
  '!slug': 'string',
  hosts: [Person],
  '!created': Stamp,
  '!updated': Stamp,
};
const Meeting: Shape = {
  '!id': 'string',
  '!name': 'string',
  description: 'string',
  '!start': 'timestamp',
  '!end': 'timestamp',
  '!status': 'string',
  '!hosts': [Person],
  '!attendees': [Person],
};
const SendAnswer: Shape = {
  '!jobId': 'string',
  '!queued': 'integer',
  '!estimatedPrice': 'number',
  '!messages': [Message],
  '!requested': 'integer',
  '!valid': 'integer',
  // Each contact that could not be sent to, with the reason.
  '!invalid': [{ mobile: Mobile, '!error': Err }],
};
const CsvAnswer: Shape = {
  '!submitted': 'integer',
  '!inserted': 'integer',
  '!updated': 'integer',
  '!success': 'integer',
  '!contacts': [Contact],
  // Contacts that failed validation, each with its error.
  '!errors': [{ '!error': Err }],
};

// ---- What an operation needs to be called ----

/** Creates, through the API, a fresh record an operation acts on, and answers its path value. */
export type Fixture =
  | 'contact'
  | 'message'
  | 'conversation'
  | 'template'
  | 'campaign'
  | 'form'
  | 'link'
  | 'webhookUrl'
  | 'meetingEvent'
  | 'meeting';

/** A request: a JSON body, or a raw payload with its headers, and a query string. */
export interface SampleRequest {
  json?: unknown;
  payload?: string | Buffer;
  headers?: Record<string, string>;
  query?: string;
}

/** One published operation. */
export interface Operation {
  /** Area as the description names it. */
  area: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Names the sample when one operation has several (a CSV body, a binary or a multipart upload). */
  variant?: string;
  /** The published path; `{accountId}` and each `{param}` in `params` are filled in. */
  path: string;
  /** A fresh record for each path parameter (other than accountId). */
  params?: Record<string, Fixture>;
  /** The sample request (its body builder gets a fresh unique mobile number). */
  request?: (mobile: () => string) => SampleRequest;
  /** Answered without a bearer token (the token endpoint). */
  anonymous?: boolean;
  status: number;
  /** `data`'s shape (the whole body for `raw`), or null when only `success` is answered. */
  shape: Shape | null;
  /** A collection: `data` is an array of `shape`, beside `pagination`. */
  list?: boolean;
  /** The answer is not in the envelope (the token endpoint). */
  raw?: boolean;
}

const A = '/v1/accounts/{accountId}';

// A 1×1 PNG, the smallest file the share endpoint should host.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const BOUNDARY = '----sparrowcontract';
const multipart = (name: string, type: string, content: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);

/** Every operation the published description shows (the table in spec/compatibility.md). */
export const OPERATIONS: Operation[] = [
  // auth
  {
    area: 'auth',
    method: 'POST',
    path: '/oauth2/token',
    anonymous: true,
    // Filled in by the test with the account's own credentials.
    request: () => ({ json: { grant_type: 'client_credentials' } }),
    status: 200,
    raw: true,
    shape: { '!access_token': 'string', '!token_type': 'string' },
  },
  // accounts
  {
    area: 'accounts',
    method: 'GET',
    path: A,
    status: 200,
    shape: { '!id': 'string', '!name': 'string', created: Stamp, updated: Stamp },
  },
  { area: 'accounts', method: 'GET', path: `${A}/balance`, status: 200, shape: { '!balance': 'number' } },
  // contacts
  {
    area: 'contacts',
    method: 'GET',
    path: `${A}/contacts`,
    params: { contactId: 'contact' },
    request: () => ({ query: 'offset=0&limit=10&firstName=Ad&tags=' }),
    status: 200,
    shape: Contact,
    list: true,
  },
  {
    area: 'contacts',
    method: 'POST',
    path: `${A}/contacts`,
    request: (mobile) => ({
      query: 'mergeStrategy=append',
      json: {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        mobile: { number: mobile(), country: 'US' },
        tags: [{ tag: 'vip', visible: true }],
        attributes: { favouriteColour: 'green' },
      },
    }),
    status: 201,
    // ContactsResponse: `data` an array of the contact created.
    shape: Contact,
    list: true,
  },
  {
    area: 'contacts',
    method: 'POST',
    path: `${A}/contacts`,
    variant: 'CSV upload',
    request: (mobile) => ({
      query: 'mergeStrategy=append',
      headers: { 'content-type': 'text/csv' },
      payload:
        'country,firstName,lastName,email,mobile,favouriteColour\n' +
        `US,Bo,Bee,bo@example.com,${mobile()},blue\n` +
        `US,Cy,Sea,cy@example.com,${mobile()},red\n` +
        'US,No,Number,no@example.com,12,grey\n',
    }),
    status: 201,
    shape: CsvAnswer,
  },
  {
    area: 'contacts',
    method: 'GET',
    path: `${A}/contacts/{contactId}`,
    params: { contactId: 'contact' },
    status: 200,
    shape: Contact,
  },
  {
    area: 'contacts',
    method: 'PUT',
    path: `${A}/contacts/{contactId}`,
    params: { contactId: 'contact' },
    request: () => ({ json: { firstName: 'Ada', lastName: 'Byron', email: 'ada.byron@example.com' } }),
    status: 200,
    shape: Contact,
  },
  {
    area: 'contacts',
    method: 'DELETE',
    path: `${A}/contacts/{contactId}`,
    params: { contactId: 'contact' },
    status: 200,
    shape: null,
  },
  // messages
  {
    area: 'messages',
    method: 'POST',
    path: `${A}/messages`,
    request: (mobile) => ({
      json: {
        contacts: [
          { mobile: { number: mobile(), country: 'US' }, firstName: 'Ada' },
          { mobile: { number: '+1234', country: 'US' } },
        ],
        template: 'Hi {{{firstName}}}, {{{contact.firstName}}}!',
        type: 'SMS',
      },
    }),
    status: 200,
    shape: SendAnswer,
  },
  {
    area: 'messages',
    method: 'GET',
    path: `${A}/messages`,
    params: { messageId: 'message' },
    request: () => ({ query: 'offset=0&limit=10' }),
    status: 200,
    shape: Message,
    list: true,
  },
  {
    area: 'messages',
    method: 'GET',
    path: `${A}/messages/{messageId}`,
    params: { messageId: 'message' },
    status: 200,
    shape: Message,
  },
  // conversations
  {
    area: 'conversations',
    method: 'GET',
    path: `${A}/conversations`,
    params: { conversationId: 'conversation' },
    request: () => ({ query: 'offset=0&limit=10' }),
    status: 200,
    shape: Conversation,
    list: true,
  },
  {
    area: 'conversations',
    method: 'GET',
    path: `${A}/conversations/{conversationId}`,
    params: { conversationId: 'conversation' },
    status: 200,
    shape: Conversation,
  },
  {
    area: 'conversations',
    method: 'PUT',
    path: `${A}/conversations/{conversationId}/close`,
    params: { conversationId: 'conversation' },
    status: 200,
    shape: Conversation,
  },
  // campaigns
  {
    area: 'campaigns',
    method: 'POST',
    path: `${A}/campaigns`,
    request: () => ({
      json: {
        name: 'Spring sale',
        template: 'Hi {{{firstName}}}, 20% off today',
        trigger: { code: 'M' },
        filters: { tags: [{ tag: 'vip', visible: true }] },
        reporting: { when: 'NoReport' },
      },
    }),
    status: 201,
    shape: Campaign,
  },
  {
    area: 'campaigns',
    method: 'GET',
    path: `${A}/campaigns/{campaignId}`,
    params: { campaignId: 'campaign' },
    status: 200,
    shape: Campaign,
  },
  {
    area: 'campaigns',
    method: 'DELETE',
    path: `${A}/campaigns/{campaignId}`,
    params: { campaignId: 'campaign' },
    status: 200,
    shape: null,
  },
  // templates
  {
    area: 'templates',
    method: 'GET',
    path: `${A}/templates`,
    params: { templateId: 'template' },
    request: () => ({ query: 'offset=0&limit=10&name=Wel' }),
    status: 200,
    shape: Template,
    list: true,
  },
  {
    area: 'templates',
    method: 'POST',
    path: `${A}/templates`,
    request: () => ({ json: { name: 'Welcome', type: 'SMS', template: 'Welcome {{{firstName}}}' } }),
    status: 201,
    // TemplatesResponse: `data` an array of the template created.
    shape: Template,
    list: true,
  },
  {
    area: 'templates',
    method: 'GET',
    path: `${A}/templates/{templateId}`,
    params: { templateId: 'template' },
    status: 200,
    shape: Template,
  },
  {
    area: 'templates',
    method: 'PUT',
    path: `${A}/templates/{templateId}`,
    params: { templateId: 'template' },
    request: () => ({
      json: { name: 'Welcome back', type: 'SMS', template: 'Welcome back {{{firstName}}}' },
    }),
    status: 200,
    shape: Template,
  },
  {
    area: 'templates',
    method: 'DELETE',
    path: `${A}/templates/{templateId}`,
    params: { templateId: 'template' },
    status: 200,
    shape: null,
  },
  // webhooks
  {
    area: 'webhooks',
    method: 'DELETE',
    path: `${A}/webhooks/{url}`,
    params: { url: 'webhookUrl' },
    status: 204,
    shape: null,
  },
  // forms
  {
    area: 'forms',
    method: 'GET',
    path: `${A}/forms`,
    params: { formId: 'form' },
    request: () => ({ query: 'offset=0&limit=10' }),
    status: 200,
    shape: LeadForm,
    list: true,
  },
  {
    area: 'forms',
    method: 'POST',
    path: `${A}/forms`,
    request: () => ({ json: { name: 'Newsletter sign-up' } }),
    status: 201,
    shape: LeadForm,
  },
  {
    area: 'forms',
    method: 'GET',
    path: `${A}/forms/{formId}`,
    params: { formId: 'form' },
    status: 200,
    shape: LeadForm,
  },
  {
    area: 'forms',
    method: 'PUT',
    path: `${A}/forms/{formId}`,
    params: { formId: 'form' },
    request: () => ({ json: { name: 'Newsletter sign-up (spring)' } }),
    status: 200,
    shape: LeadForm,
  },
  {
    area: 'forms',
    method: 'DELETE',
    path: `${A}/forms/{formId}`,
    params: { formId: 'form' },
    status: 200,
    shape: null,
  },
  {
    area: 'forms',
    method: 'GET',
    path: `${A}/forms/{formId}/analytics`,
    params: { formId: 'form' },
    status: 200,
    shape: 'object',
  },
  {
    area: 'forms',
    method: 'PUT',
    path: `${A}/forms/{formId}/activate`,
    params: { formId: 'form' },
    status: 200,
    shape: { ...LeadForm, '!active': 'timestamp' },
  },
  // links
  {
    area: 'links',
    method: 'GET',
    path: `${A}/links`,
    params: { linkId: 'link' },
    request: () => ({ query: 'offset=0&limit=10' }),
    status: 200,
    shape: Link,
    list: true,
  },
  {
    area: 'links',
    method: 'GET',
    path: `${A}/links/{linkId}`,
    params: { linkId: 'link' },
    status: 200,
    shape: Link,
  },
  {
    area: 'links',
    method: 'GET',
    path: `${A}/links/{linkId}/sources`,
    params: { linkId: 'link' },
    status: 200,
    shape: LinkSource,
    list: true,
  },
  // availablephonenumbers
  {
    area: 'availablephonenumbers',
    method: 'GET',
    path: `${A}/availablephonenumbers`,
    request: () => ({ query: 'type=local&areaCode=415&contains=555&features=sms' }),
    status: 200,
    shape: AvailableNumber,
    list: true,
  },
  // tools: the generated clients send the file as the body (application/octet-stream), 200.
  {
    area: 'tools',
    method: 'POST',
    path: '/v1/tools/sharefile',
    variant: 'binary body',
    request: () => ({ headers: { 'content-type': 'application/octet-stream' }, payload: PNG }),
    status: 200,
    shape: { '!link': 'string', '!expires': 'timestamp' },
  },
  {
    area: 'tools',
    method: 'POST',
    path: '/v1/tools/sharefile',
    variant: 'multipart upload',
    request: () => ({
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: multipart('pixel.png', 'image/png', PNG),
    }),
    status: 200,
    shape: { '!link': 'string', '!expires': 'timestamp' },
  },
  // meetings
  {
    area: 'meetings',
    method: 'GET',
    path: `${A}/meetingevents`,
    params: { eventId: 'meetingEvent' },
    status: 200,
    shape: MeetingEvent,
    list: true,
  },
  {
    area: 'meetings',
    method: 'POST',
    path: `${A}/meetingevents`,
    request: () => ({
      json: {
        name: 'Intro call',
        slug: `intro-${Math.random().toString(36).slice(2, 10)}`,
        durations: [30],
        timezone: 'UTC',
      },
    }),
    status: 201,
    shape: MeetingEvent,
  },
  {
    area: 'meetings',
    method: 'GET',
    path: `${A}/meetingevents/{eventId}`,
    params: { eventId: 'meetingEvent' },
    status: 200,
    shape: MeetingEvent,
  },
  {
    area: 'meetings',
    method: 'PUT',
    path: `${A}/meetingevents/{eventId}`,
    params: { eventId: 'meetingEvent' },
    request: () => ({ json: { name: 'Intro call (30 min)' } }),
    status: 200,
    shape: MeetingEvent,
  },
  {
    area: 'meetings',
    method: 'DELETE',
    path: `${A}/meetingevents/{eventId}`,
    params: { eventId: 'meetingEvent' },
    status: 200,
    shape: null,
  },
  {
    area: 'meetings',
    method: 'POST',
    path: `${A}/meetingevents/{eventId}/duplicate`,
    params: { eventId: 'meetingEvent' },
    status: 201,
    shape: MeetingEvent,
  },
  {
    area: 'meetings',
    method: 'GET',
    path: `${A}/meetings`,
    params: { meetingId: 'meeting' },
    status: 200,
    shape: Meeting,
    list: true,
  },
  {
    area: 'meetings',
    method: 'GET',
    path: `${A}/meetings/{meetingId}`,
    params: { meetingId: 'meeting' },
    status: 200,
    shape: Meeting,
  },
];
