/**
 * JSON schemas of the answers of the vendor's published description, transcribed from it (OpenAPI
 * 3.0.0, info.version 1.0.1: APIs-guru/openapi-directory, APIs/sakari.io/1.0.1/openapi.yaml, the
 * revision whose servers URL is the bare host and whose webhooks.subscribe accepts `list-opt-in` /
 * `list-opt-out`), with the 26 operations it shows. Each schema names the component it transcribes;
 * each operation its operationId and the response it is checked against. Not a test file itself.
 *
 * Transcribed as written: no field is `required` (the description marks none), `additionalProperties`
 * is open (its "open schema model"), and no schema is `nullable`, so a `null` anywhere a type is given
 * fails, as it fails a strict generated client. Where the description contradicts the interface
 * document, the interface wins, and the departure is marked `INTERFACE WINS` below (the list in
 * docs/interface.md, "Where the published description and the interface differ").
 */

import assert from 'node:assert/strict';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Schema = Record<string, unknown>;

// `#/components/schemas/X` of the description is `#/$defs/X` here (JSON Schema's place for them).
const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...extra,
});
const arr = (items: Schema): Schema => ({ type: 'array', items });

/** components.schemas of the description, the ones its answers use. */
export const COMPONENTS: Record<string, Schema> = {
  // components.schemas.Updated (used as `created` and `updated`)
  Updated: obj({
    at: { type: 'string', format: 'date-time' },
    by: obj({ firstName: str, id: str, lastName: str }),
  }),
  // components.schemas.Error
  Error: obj({ code: str, description: str }),
  // components.schemas.Tag
  Tag: obj({ tag: str, visible: bool }),
  // components.schemas.ContactIdentifiers
  ContactIdentifiers: obj({
    email: str,
    firstName: str,
    id: str,
    lastName: str,
    mobile: obj({ country: str, number: str }),
  }),
  // components.schemas.ContactRequest: allOf ContactIdentifiers + {attributes, tags}
  ContactRequest: {
    allOf: [ref('ContactIdentifiers'), obj({ attributes: { type: 'object' }, tags: arr(ref('Tag')) })],
  },
  // components.schemas.Contact: allOf ContactRequest + {created, error, updated, valid}
  Contact: {
    allOf: [
      ref('ContactRequest'),
      obj({ created: ref('Updated'), error: ref('Error'), updated: ref('Updated'), valid: bool }),
    ],
  },
  // components.schemas.PaginatedResponse
  PaginatedResponse: obj({
    error: obj({ code: str, message: str }),
    pagination: obj({ limit: int, offset: int, totalCount: int }),
    success: bool,
  }),
  // components.schemas.Message
  Message: obj({
    contact: ref('ContactIdentifiers'),
    conversation: obj({ id: str }),
    created: ref('Updated'),
    error: ref('Error'),
    id: str,
    media: arr(obj({ filename: str, type: str, url: str })),
    message: str,
    outgoing: bool,
    phoneNumber: str,
    price: { type: 'number' },
    read: bool,
    segments: { type: 'number' },
    status: str,
    template: str,
    updated: ref('Updated'),
  }),
  // components.schemas.PhoneNumber
  PhoneNumber: obj({ active: bool, country: str, number: str }),
  // components.schemas.Conversation
  Conversation: obj({
    closed: bool,
    contact: ref('ContactIdentifiers'),
    created: ref('Updated'),
    id: str,
    lastMessage: ref('Message'),
    phoneNumber: ref('PhoneNumber'),
    unread: arr(str),
    updated: ref('Updated'),
  }),
  // components.schemas.Campaign
  Campaign: obj({ id: str }),
  // components.schemas.TemplateRequest
  TemplateRequest: obj({ name: str, template: str, type: { type: 'string', enum: ['SMS', 'Web'] } }),
  // components.schemas.Template: allOf TemplateRequest + {id}
  Template: { allOf: [ref('TemplateRequest'), obj({ id: str })] },
  // components.schemas.Webhook. INTERFACE WINS on the event type names: the interface's ten (and the
  // published revision's list-opt-in / list-opt-out), where the description's enum lists seven.
  Webhook: obj({
    eventTypes: arr({
      type: 'string',
      enum: [
        'message-received',
        'message-status',
        'message-sent',
        'conversation-started',
        'conversation-closed',
        'contact-created',
        'contact-updated',
        'contact-removed',
        'contact-opt-out',
        'contact-opt-in',
        'list-opt-in',
        'list-opt-out',
      ],
    }),
    url: str,
  }),
  // components.schemas.MessageEventPayload (the `data` of a message event, Event.data's oneOf)
  MessageEventPayload: obj({ contact: ref('ContactIdentifiers'), error: str, message: str, status: str }),
  // components.schemas.Event (the body of a delivery: webhooks.unsubscribe's callbacks.event)
  Event: obj({
    accountId: str,
    // oneOf AccountEventPayload | MessageEventPayload; message events are checked against the latter.
    data: { type: 'object' },
    eventId: str,
    // INTERFACE WINS: the interface's event type names, not EventType's account / messageStatus / messageIncoming.
    type: str,
  }),
};

/** The response schemas, each as the description defines it. */
export const RESPONSES: Record<string, Schema> = {
  // components.schemas.TokenResponse
  TokenResponse: obj({ access_token: str, token_type: str }),
  // components.schemas.ContactsResponse: allOf PaginatedResponse + {data: Contact[]}
  ContactsResponse: { allOf: [ref('PaginatedResponse'), obj({ data: arr(ref('Contact')) })] },
  // components.schemas.ContactResponse
  ContactResponse: obj({ data: ref('Contact'), success: bool }),
  // components.schemas.ContactUploadResponse
  ContactUploadResponse: obj({
    data: obj({
      contacts: arr(ref('Contact')),
      errors: arr(ref('Contact')),
      inserted: int,
      submitted: int,
      success: int,
      updated: int,
    }),
    success: bool,
  }),
  // contacts.remove / campaigns.remove / templates.remove: an inline {success: boolean}
  SuccessResponse: obj({ success: bool }),
  // components.schemas.MessagesResponse
  MessagesResponse: { allOf: [ref('PaginatedResponse'), obj({ data: arr(ref('Message')) })] },
  // components.schemas.MessageResponse
  MessageResponse: obj({ data: ref('Message'), success: bool }),
  // components.schemas.SendMessagesResponse
  SendMessagesResponse: obj({
    data: obj({
      estimatedPrice: { type: 'number', format: 'double' },
      invalid: arr(ref('Contact')),
      jobId: str,
      messages: arr(ref('Message')),
      requested: int,
      valid: int,
    }),
  }),
  // components.schemas.ConversationsResponse
  ConversationsResponse: { allOf: [ref('PaginatedResponse'), obj({ data: arr(ref('Conversation')) })] },
  // components.schemas.ConversationResponse
  ConversationResponse: obj({ data: ref('Conversation'), success: bool }),
  // components.schemas.CampaignsResponse
  CampaignsResponse: { allOf: [ref('PaginatedResponse'), obj({ data: arr(ref('Campaign')) })] },
  // components.schemas.CampaignResponse
  CampaignResponse: obj({ data: ref('Campaign'), success: bool }),
  // components.schemas.TemplatesResponse
  TemplatesResponse: { allOf: [ref('PaginatedResponse'), obj({ data: arr(ref('Template')) })] },
  // components.schemas.TemplateResponse
  TemplateResponse: obj({ data: ref('Template'), success: bool }),
  // components.schemas.WebhooksResponse
  WebhooksResponse: { allOf: [ref('PaginatedResponse'), obj({ data: arr(ref('Webhook')) })] },
  // components.schemas.WebhookResponse
  WebhookResponse: obj({ data: ref('Webhook'), success: bool }),
  // components.schemas.ShareFileResponse
  ShareFileResponse: obj({
    data: obj({ expires: { type: 'string', format: 'date-time' }, link: str }),
    success: bool,
  }),
};

/** What an operation's path needs: a fresh record of this kind (made through the API). */
export type PathFixture = 'contact' | 'message' | 'conversation' | 'template' | 'campaign' | 'webhookUrl';

/** One published operation, its sample request, and the response it is checked against. */
export interface PublishedOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The published path; `{accountId}` and each `{param}` of `params` are filled in. */
  path: string;
  params?: Record<string, PathFixture>;
  /** The request: a JSON body, or a payload with its headers, and a query string. */
  request?: (mobile: () => string) => {
    json?: unknown;
    payload?: string | Buffer;
    headers?: Record<string, string>;
    query?: string;
  };
  /** Called without a token (the token endpoint). */
  anonymous?: boolean;
  /** The published status, and the response (in RESPONSES) its body is checked against; none for 204. */
  status: number;
  response?: string;
  /** Names the sample when one operation has several request bodies. */
  variant?: string;
}

const A = '/v1/accounts/{accountId}';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const BOUNDARY = '----sparrowpublished';

/** The description's 26 operations (paths as its `/v1` revision writes them). */
export const PUBLISHED_OPERATIONS: PublishedOperation[] = [
  // auth.token: 200 TokenResponse (the test fills in the account's credentials)
  {
    operationId: 'auth.token',
    method: 'POST',
    path: '/oauth2/token',
    anonymous: true,
    request: () => ({ json: { grant_type: 'client_credentials' } }),
    status: 200,
    response: 'TokenResponse',
  },
  // campaigns.fetchAll: 200 CampaignsResponse
  {
    operationId: 'campaigns.fetchAll',
    method: 'GET',
    path: `${A}/campaigns`,
    params: { campaignId: 'campaign' },
    request: () => ({ query: 'offset=0&limit=10&name=Spr' }),
    status: 200,
    response: 'CampaignsResponse',
  },
  // campaigns.create: 201 CampaignResponse; the sample body is the description's curl sample
  {
    operationId: 'campaigns.create',
    method: 'POST',
    path: `${A}/campaigns`,
    request: () => ({
      json: {
        name: 'Marketing Campaign',
        trigger: { code: 'M' },
        template: 'Hi {{{contact.firstName}}}',
        reporting: { when: 'NoReport' },
      },
    }),
    status: 201,
    response: 'CampaignResponse',
  },
  // campaigns.create with a body a generated client sends: CampaignRequest (no name; published filters)
  {
    operationId: 'campaigns.create',
    variant: 'CampaignRequest body',
    method: 'POST',
    path: `${A}/campaigns`,
    request: () => ({
      json: {
        template: 'Hi {{{firstName}}}',
        trigger: { code: 'M' },
        filters: { tags: ['vip'], contacts: [] },
      },
    }),
    status: 201,
    response: 'CampaignResponse',
  },
  // campaigns.remove: 200 {success}
  {
    operationId: 'campaigns.remove',
    method: 'DELETE',
    path: `${A}/campaigns/{campaignId}`,
    params: { campaignId: 'campaign' },
    status: 200,
    response: 'SuccessResponse',
  },
  // campaigns.fetch: 200 CampaignResponse
  {
    operationId: 'campaigns.fetch',
    method: 'GET',
    path: `${A}/campaigns/{campaignId}`,
    params: { campaignId: 'campaign' },
    status: 200,
    response: 'CampaignResponse',
  },
  // campaigns.update: 200 CampaignResponse (its sample's body; the interface's method, PUT)
  {
    operationId: 'campaigns.update',
    method: 'PUT',
    path: `${A}/campaigns/{campaignId}`,
    params: { campaignId: 'campaign' },
    request: () => ({
      json: {
        name: 'Marketing Campaign',
        trigger: { code: 'M' },
        template: 'Hi {{{contact.firstName}}}',
        reporting: { when: 'NoReport' },
      },
    }),
    status: 200,
    response: 'CampaignResponse',
  },
  // contacts.fetchAll: 200 ContactsResponse
  {
    operationId: 'contacts.fetchAll',
    method: 'GET',
    path: `${A}/contacts`,
    params: { contactId: 'contact' },
    request: () => ({ query: 'offset=0&limit=10&firstName=Ad' }),
    status: 200,
    response: 'ContactsResponse',
  },
  // contacts.create (application/json): 201 oneOf ContactsResponse | ContactUploadResponse
  {
    operationId: 'contacts.create',
    variant: 'JSON',
    method: 'POST',
    path: `${A}/contacts`,
    request: (mobile) => ({
      json: { firstName: 'Chris', lastName: 'Thomson', mobile: { number: mobile(), country: 'US' } },
    }),
    status: 201,
    response: 'ContactsResponse',
  },
  // contacts.create with the national number of the description's own example (123-456-7890 is no
  // real number: a valid national one in the same form)
  {
    operationId: 'contacts.create',
    variant: 'JSON, a national number without a country',
    method: 'POST',
    path: `${A}/contacts`,
    request: () => ({ json: { firstName: 'Chris', mobile: { number: '302-624-2325' } } }),
    status: 201,
    response: 'ContactsResponse',
  },
  // contacts.create (text/csv): 201 ContactUploadResponse; header row as the description's example
  {
    operationId: 'contacts.create',
    variant: 'text/csv',
    method: 'POST',
    path: `${A}/contacts`,
    request: (mobile) => ({
      headers: { 'content-type': 'text/csv' },
      payload: `country,firstName,lastName,email,mobile,jobTitle\nUS,Joe,Bloggs,joe@example.com,${mobile()},mover\n`,
    }),
    status: 201,
    response: 'ContactUploadResponse',
  },
  // contacts.remove: 200 {success}
  {
    operationId: 'contacts.remove',
    method: 'DELETE',
    path: `${A}/contacts/{contactId}`,
    params: { contactId: 'contact' },
    status: 200,
    response: 'SuccessResponse',
  },
  // contacts.fetch: 200 ContactResponse
  {
    operationId: 'contacts.fetch',
    method: 'GET',
    path: `${A}/contacts/{contactId}`,
    params: { contactId: 'contact' },
    status: 200,
    response: 'ContactResponse',
  },
  // contacts.update: 200 ContactResponse
  {
    operationId: 'contacts.update',
    method: 'PUT',
    path: `${A}/contacts/{contactId}`,
    params: { contactId: 'contact' },
    request: () => ({ json: { firstName: 'Bob', lastName: 'Thomson' } }),
    status: 200,
    response: 'ContactResponse',
  },
  // conversations.fetchAll: 200 ConversationsResponse
  {
    operationId: 'conversations.fetchAll',
    method: 'GET',
    path: `${A}/conversations`,
    params: { conversationId: 'conversation' },
    request: () => ({ query: 'offset=0&limit=10' }),
    status: 200,
    response: 'ConversationsResponse',
  },
  // conversations.fetch: 200 ConversationResponse
  {
    operationId: 'conversations.fetch',
    method: 'GET',
    path: `${A}/conversations/{conversationId}`,
    params: { conversationId: 'conversation' },
    status: 200,
    response: 'ConversationResponse',
  },
  // conversations.close: 200 ConversationResponse
  {
    operationId: 'conversations.close',
    method: 'PUT',
    path: `${A}/conversations/{conversationId}/close`,
    params: { conversationId: 'conversation' },
    status: 200,
    response: 'ConversationResponse',
  },
  // messages.fetchAll: 200 MessagesResponse
  {
    operationId: 'messages.fetchAll',
    method: 'GET',
    path: `${A}/messages`,
    params: { messageId: 'message' },
    request: () => ({ query: 'offset=0&limit=10' }),
    status: 200,
    response: 'MessagesResponse',
  },
  // messages.send: 200 SendMessagesResponse; the description's sample body with an invalid number beside
  {
    operationId: 'messages.send',
    method: 'POST',
    path: `${A}/messages`,
    request: (mobile) => ({
      json: {
        contacts: [
          { mobile: { number: mobile(), country: 'US' } },
          { mobile: { number: '+1234', country: 'US' } },
        ],
        template: 'Congratulations! You just sent your first message',
      },
    }),
    status: 200,
    response: 'SendMessagesResponse',
  },
  // messages.fetch: 200 MessageResponse
  {
    operationId: 'messages.fetch',
    method: 'GET',
    path: `${A}/messages/{messageId}`,
    params: { messageId: 'message' },
    status: 200,
    response: 'MessageResponse',
  },
  // templates.fetchAll: 200 TemplatesResponse
  {
    operationId: 'templates.fetchAll',
    method: 'GET',
    path: `${A}/templates`,
    params: { templateId: 'template' },
    request: () => ({ query: 'offset=0&limit=10&name=Test' }),
    status: 200,
    response: 'TemplatesResponse',
  },
  // templates.create: 201 TemplatesResponse (an array)
  {
    operationId: 'templates.create',
    method: 'POST',
    path: `${A}/templates`,
    request: () => ({
      json: { name: 'Test Template', template: 'Hi {{ firstName }}, Welcome!', type: 'SMS' },
    }),
    status: 201,
    response: 'TemplatesResponse',
  },
  // templates.remove: 200 {success}
  {
    operationId: 'templates.remove',
    method: 'DELETE',
    path: `${A}/templates/{templateId}`,
    params: { templateId: 'template' },
    status: 200,
    response: 'SuccessResponse',
  },
  // templates.fetch: 200 TemplateResponse
  {
    operationId: 'templates.fetch',
    method: 'GET',
    path: `${A}/templates/{templateId}`,
    params: { templateId: 'template' },
    status: 200,
    response: 'TemplateResponse',
  },
  // templates.update: 200 TemplateResponse
  {
    operationId: 'templates.update',
    method: 'PUT',
    path: `${A}/templates/{templateId}`,
    params: { templateId: 'template' },
    request: () => ({
      json: { name: 'Test Template', template: 'Hi {{ firstName }}, Welcome!', type: 'SMS' },
    }),
    status: 200,
    response: 'TemplateResponse',
  },
  // webhooks.fetchAll: 200 WebhooksResponse
  {
    operationId: 'webhooks.fetchAll',
    method: 'GET',
    path: `${A}/webhooks`,
    params: { url: 'webhookUrl' },
    status: 200,
    response: 'WebhooksResponse',
  },
  // webhooks.subscribe: 200 WebhookResponse, with the published revision's list event types
  {
    operationId: 'webhooks.subscribe',
    method: 'POST',
    path: `${A}/webhooks`,
    request: () => ({
      json: {
        url: `http://127.0.0.1:9/published/${Math.random().toString(36).slice(2)}`,
        eventTypes: ['message-received', 'list-opt-in', 'list-opt-out'],
      },
    }),
    status: 200,
    response: 'WebhookResponse',
  },
  // webhooks.unsubscribe: 204
  {
    operationId: 'webhooks.unsubscribe',
    method: 'DELETE',
    path: `${A}/webhooks/{url}`,
    params: { url: 'webhookUrl' },
    status: 204,
  },
  // tools.shareFile (application/octet-stream): 200 ShareFileResponse
  {
    operationId: 'tools.shareFile',
    variant: 'application/octet-stream',
    method: 'POST',
    path: '/v1/tools/sharefile',
    request: () => ({ headers: { 'content-type': 'application/octet-stream' }, payload: PNG }),
    status: 200,
    response: 'ShareFileResponse',
  },
  // tools.shareFile (multipart/form-data, its `media` part): 200 ShareFileResponse
  {
    operationId: 'tools.shareFile',
    variant: 'multipart/form-data',
    method: 'POST',
    path: '/v1/tools/sharefile',
    request: () => ({
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: Buffer.concat([
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="media"; filename="pixel.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        PNG,
        Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
      ]),
    }),
    status: 200,
    response: 'ShareFileResponse',
  },
];

/** A validator of the published schemas: `validator('ContactsResponse')`. */
export function publishedValidator(): (name: string) => ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats.default(ajv);
  // OpenAPI's number formats, which JSON Schema does not define.
  ajv.addFormat('double', true);
  ajv.addFormat('int64', true);
  ajv.addSchema({ $id: 'published', $defs: { ...COMPONENTS, ...RESPONSES } });
  return (name) => {
    const v = ajv.getSchema(`published#/$defs/${name}`);
    assert.ok(v, `no published schema ${name}`);
    return v;
  };
}

export function assertValid(v: ValidateFunction, value: unknown, what: string) {
  const ok = v(value);
  const errors = (v.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`);
  assert.ok(ok, `${what} does not match the published schema:\n  ${errors.join('\n  ')}`);
}
