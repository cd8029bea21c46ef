import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/*
 * The contract with existing clients: every operation named in spec/compatibility.md, called with a
 * sample request, answers the published status and fields of the published types (objects stay
 * objects, strings stay strings; extra fields are allowed; a field with a type is never null — a
 * strict generated client rejects that). `tools` (sharefile) is not built yet and not walked here.
 */

/** A published type: a primitive name, an object's fields, or `[item]` for an array. */
type Shape = Prim | { [field: string]: Shape } | [Shape];
type Prim = 'string' | 'number' | 'integer' | 'boolean' | 'timestamp' | 'object' | 'array';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/**
 * The ways `value` departs from `shape`, each named by its path. A field whose name starts with `!`
 * must be present; the others may be left out, but never be null.
 */
function mismatches(value: unknown, shape: Shape, path = 'data'): string[] {
  if (value === null) return [`${path} is null (published type: ${typeName(shape)})`];
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path} is ${typeof value}, not an array`];
    return value.flatMap((v, i) => mismatches(v, shape[0], `${path}[${i}]`));
  }
  if (typeof shape === 'object') {
    if (typeof value !== 'object' || Array.isArray(value))
      return [`${path} is ${kind(value)}, not an object`];
    const obj = value as Record<string, unknown>;
    return Object.entries(shape).flatMap(([key, s]) => {
      const name = key.replace(/^!/, '');
      if (!(name in obj)) return key.startsWith('!') ? [`${path}.${name} is missing`] : [];
      return mismatches(obj[name], s, `${path}.${name}`);
    });
  }
  const ok: Record<Prim, (v: unknown) => boolean> = {
    string: (v) => typeof v === 'string',
    number: (v) => typeof v === 'number',
    integer: (v) => Number.isInteger(v),
    boolean: (v) => typeof v === 'boolean',
    timestamp: (v) => typeof v === 'string' && TIMESTAMP.test(v),
    object: (v) => typeof v === 'object' && !Array.isArray(v),
    array: (v) => Array.isArray(v),
  };
  return ok[shape](value) ? [] : [`${path} is ${kind(value)} ${JSON.stringify(value)}, not ${shape}`];
}
const kind = (v: unknown) => (Array.isArray(v) ? 'an array' : typeof v);
const typeName = (s: Shape): string => (Array.isArray(s) ? 'array' : typeof s === 'object' ? 'object' : s);

function assertShape(value: unknown, shape: Shape, what: string) {
  const found = mismatches(value, shape);
  assert.deepEqual(found, [], `${what}:\n  ${found.join('\n  ')}`);
}

// ---- The published shapes (spec/compatibility.md and the interface's common shapes) ----

const Stamp: Shape = { '!at': 'timestamp', by: 'object' };
const Err: Shape = { '!code': 'string', description: 'string' };
const Mobile: Shape = {
  country: 'string',
  '!number': 'string',
  verified: 'timestamp',
  valid: 'boolean',
  lineType: 'string',
};
const Contact: Shape = {
  '!id': 'string',
  email: 'string',
  firstName: 'string',
  lastName: 'string',
  mobile: Mobile,
  lists: [{ '!id': 'string', name: 'string', optIn: 'timestamp', optOut: 'timestamp' }],
  attributes: 'object',
  tags: [{ '!tag': 'string', visible: 'boolean' }],
  optIn: 'timestamp',
  blocked: 'timestamp',
  valid: 'boolean',
  error: Err,
  '!created': Stamp,
  '!updated': Stamp,
};
const Message: Shape = {
  '!id': 'string',
  // Left out only for a message to a number that is not valid (no contact was created for it).
  contact: {
    '!id': 'string',
    firstName: 'string',
    lastName: 'string',
    email: 'string',
    '!mobile': Mobile,
  },
  conversation: { '!id': 'string' },
  '!phoneNumber': 'string',
  message: 'string',
  template: 'string',
  '!media': 'array',
  '!outgoing': 'boolean',
  '!status': 'string',
  '!segments': 'number',
  '!price': 'number',
  '!read': 'boolean',
  error: Err,
  '!created': Stamp,
  '!updated': Stamp,
};
const Conversation: Shape = {
  '!id': 'string',
  '!contact': { '!id': 'string', firstName: 'string', lastName: 'string', email: 'string', mobile: Mobile },
  '!phoneNumber': { id: 'string', '!number': 'string', country: 'string', '!active': 'boolean' },
  lastMessage: Message,
  '!unread': ['string'],
  '!closed': 'boolean',
  '!created': Stamp,
  '!updated': Stamp,
};
const Pagination: Shape = {
  '!limit': 'integer',
  '!offset': 'integer',
  '!hasNext': 'boolean',
  totalCount: 'integer',
};
const Template: Shape = {
  '!id': 'string',
  '!name': 'string',
  type: 'string',
  '!template': 'string',
  media: 'array',
  created: Stamp,
  updated: Stamp,
};
const Campaign: Shape = {
  '!id': 'string',
  '!name': 'string',
  description: 'string',
  template: 'string',
  trigger: { code: 'string', name: 'string' },
  media: 'array',
  created: Stamp,
  updated: Stamp,
};
const LeadForm: Shape = {
  '!id': 'string',
  '!name': 'string',
  impressions: 'integer',
  conversions: 'integer',
  active: 'timestamp',
  created: Stamp,
  updated: Stamp,
};
const Webhook: Shape = {
  '!id': 'string',
  type: 'string',
  '!eventTypes': ['string'],
  '!destination': 'string',
  '!url': 'string',
};
const SendAnswer: Shape = {
  '!jobId': 'string',
  '!queued': 'integer',
  '!estimatedPrice': 'number',
  '!messages': [Message],
  '!requested': 'integer',
  '!valid': 'integer',
  '!invalid': [{ '!error': Err }],
};
const CsvAnswer: Shape = {
  '!submitted': 'integer',
  '!inserted': 'integer',
  '!updated': 'integer',
  '!success': 'integer',
  '!contacts': 'array',
  '!errors': 'array',
};

describe('the operations of the published description (spec/compatibility.md)', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const mobile = () => `+1201555${String(7100 + seq++).padStart(4, '0')}`;
  const api = (path: string) => `/v1/accounts/${a.accountId}${path}`;

  /** Calls an operation and checks the envelope, the status, and `data` (and `pagination`) against the shape. */
  async function expect(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    status: number,
    shape: Shape | null,
    opts: { json?: unknown; list?: boolean; headers?: Record<string, string>; payload?: string } = {},
  ) {
    const res = await call(svc.api, method, api(path), {
      auth: a.auth,
      json: opts.json,
      headers: opts.headers,
      payload: opts.payload,
    });
    const what = `${method} ${path}`;
    assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 500)}`);
    if (status === 204) return undefined;
    const b = body(res);
    assert.equal(b.success, true, what);
    if (opts.list) {
      assertShape(b.data, [shape ?? 'object'], what);
      assertShape(b.pagination, Pagination, `${what} pagination`);
    } else if (shape) assertShape(b.data, shape, what);
    return b.data;
  }

  let contact: { id: string };
  let conversationId: string;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
  });
  after(() => svc.close());

  it('checks its own shapes: a string mobile, a null and a missing required field are each reported', () => {
    assert.ok(mismatches({ id: 'x', mobile: '+12015550100' }, { id: 'string', mobile: Mobile }).length > 0);
    assert.ok(mismatches({ id: 'x', email: null }, { id: 'string', email: 'string' }).length > 0);
    assert.ok(mismatches({ id: 'x' }, { id: 'string', '!phoneNumber': 'object' }).length > 0);
    assert.deepEqual(mismatches({ id: 'x', extra: null }, { id: 'string' }), []);
  });

  it('accounts: GET the account and its balance', async () => {
    await expect('GET', '', 200, { '!id': 'string' });
    await expect('GET', '/balance', 200, 'object');
  });

  it('contacts: POST (JSON and CSV) answers 201; GET list, GET, PUT and DELETE as published', async () => {
    // The published 201 of a JSON create is the collection shape: `data` an array of the one contact.
    [contact] = await expect('POST', '/contacts', 201, Contact, {
      json: { mobile: mobile(), firstName: 'Ada' },
      list: true,
    });
    assert.ok(!('email' in contact), 'a contact without an e-mail leaves `email` out');
    const csv = `country,firstName,lastName,email,mobile\nUS,Bo,Bee,bo@example.com,${mobile()}\n`;
    const up = await expect('POST', '/contacts', 201, CsvAnswer, {
      headers: { 'content-type': 'text/csv' },
      payload: csv,
    });
    assert.equal(up.inserted, 1);
    await expect('GET', '/contacts?offset=0&limit=10&firstName=Ad', 200, Contact, { list: true });
    await expect('GET', `/contacts/${contact.id}`, 200, Contact);
    await expect('PUT', `/contacts/${contact.id}`, 200, Contact, { json: { lastName: 'Lovelace' } });
    const [gone] = await expect('POST', '/contacts', 201, Contact, {
      json: { mobile: mobile() },
      list: true,
    });
    const res = await call(svc.api, 'DELETE', api(`/contacts/${gone.id}`), { auth: a.auth });
    assert.equal(res.statusCode, 200);
    assert.equal(body(res).success, true);
  });

  it('messages: POST answers 200 with both published answers; GET list and GET one are Messages', async () => {
    const sent = await expect('POST', '/messages', 200, SendAnswer, {
      json: {
        contacts: [{ id: contact.id }, { mobile: { number: '+1234', country: 'US' } }],
        template: 'Hi {{{firstName}}}',
        type: 'SMS',
      },
    });
    assert.equal(sent.requested, 2);
    assert.equal(sent.valid, 1);
    assert.equal(sent.invalid.length, 1);
    assertShape(sent.invalid[0].mobile, Mobile, 'invalid[0].mobile');
    const ok = sent.messages.find((m: { contact: { id: string } }) => m.contact.id === contact.id);
    assert.equal(typeof ok.contact.mobile, 'object', 'contact.mobile is the Contact’s mobile object');
    await expect('GET', `/messages?offset=0&limit=10&contactId=${contact.id}`, 200, Message, { list: true });
    await expect('GET', `/messages/${ok.id}`, 200, Message);
    conversationId = ok.conversation.id;
  });

  it('conversations: GET list, GET one and PUT close answer Conversations', async () => {
    const c = await expect('GET', `/conversations/${conversationId}`, 200, Conversation);
    const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: c.contact.mobile.number, to: c.phoneNumber.number, text: 'hello' },
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    await expect('GET', '/conversations', 200, Conversation, { list: true });
    const withUnread = await expect('GET', `/conversations/${conversationId}`, 200, Conversation);
    assert.equal(withUnread.unread.length, 1);
    const closed = await expect('PUT', `/conversations/${conversationId}/close`, 200, Conversation);
    assert.equal(closed.closed, true);
  });

  it('templates: POST answers 201; GET (name filter), GET, PUT, DELETE', async () => {
    const [t] = await expect('POST', '/templates', 201, Template, {
      json: { name: 'Welcome', type: 'SMS', template: 'Hi {{{firstName}}}' },
      list: true,
    });
    await expect('GET', '/templates?name=Wel', 200, Template, { list: true });
    await expect('GET', `/templates/${t.id}`, 200, Template);
    await expect('PUT', `/templates/${t.id}`, 200, Template, { json: { name: 'Welcome 2' } });
    await expect('DELETE', `/templates/${t.id}`, 200, null);
  });

  it('campaigns: POST answers 201; GET and DELETE', async () => {
    const c = await expect('POST', '/campaigns', 201, Campaign, {
      json: { name: 'Spring', template: 'Hello', trigger: { code: 'M' } },
    });
    await expect('GET', `/campaigns/${c.id}`, 200, Campaign);
    await expect('DELETE', `/campaigns/${c.id}`, 200, null);
  });

  it('webhooks: the subscription carries `url` and `destination`; DELETE by URL answers 204', async () => {
    const url = 'http://127.0.0.1:9/published';
    await expect('POST', '/webhooks', 200, Webhook, { json: { url, eventTypes: ['message-status'] } });
    await expect('GET', '/webhooks', 200, Webhook, { list: true });
    await expect('DELETE', `/webhooks/${encodeURIComponent(url)}`, 204, null);
  });

  it('forms: POST, GET list, GET, PUT, analytics, activate, DELETE', async () => {
    const f = await expect('POST', '/forms', 201, LeadForm, { json: { name: 'Sign-up' } });
    await expect('GET', '/forms', 200, LeadForm, { list: true });
    await expect('GET', `/forms/${f.id}`, 200, LeadForm);
    await expect('PUT', `/forms/${f.id}`, 200, LeadForm, { json: { name: 'Sign-up 2' } });
    await expect('GET', `/forms/${f.id}/analytics`, 200, 'object');
    await expect('PUT', `/forms/${f.id}/activate`, 200, LeadForm);
    await expect('DELETE', `/forms/${f.id}`, 200, null);
  });

  it('links: GET list, GET one, GET its sources', async () => {
    const res = await call(svc.api, 'POST', api('/links'), {
      auth: a.auth,
      json: { url: 'https://example.com/offer' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = body(res).data.id;
    await expect('GET', '/links', 200, { '!id': 'string' }, { list: true });
    await expect('GET', `/links/${id}`, 200, { '!id': 'string' });
    await expect('GET', `/links/${id}/sources`, 200, 'object', { list: true });
  });

  it('availablephonenumbers and meetings: GET answers lists', async () => {
    await expect(
      'GET',
      '/availablephonenumbers?type=mobile',
      200,
      { '!number': 'string', country: 'string' },
      {
        list: true,
      },
    );
    await expect('GET', '/meetingevents', 200, { '!id': 'string' }, { list: true });
    await expect('GET', '/meetings', 200, { '!id': 'string' }, { list: true });
  });
});
