/**
 * Local servers speaking the documented APIs of HubSpot (CRM v3), Pipedrive (v1) and
 * ActiveCampaign (v3), as far as Sparrow's integrations use them, written from their public
 * documentation: authentication, pagination, error shapes and 429s. State is in memory; the test
 * drives it (people, lists, revoked tokens, rate limits, an answer held back).
 */
import http from 'node:http';
import { closeServer, listenLoopback, readBody, replyJson } from './fake-twilio.ts';

/** What every local CRM shares: the requests it got, 429s to come, a hold on writes. */
export interface CrmServer {
  url: string;
  /** Every request: method, path with query, and parsed JSON body. */
  requests: { method: string; path: string; body: unknown }[];
  /** The next `n` requests are answered 429 with `Retry-After: seconds`. */
  rateLimitNext(n: number, seconds?: number): void;
  /** Valid credentials (a token removed here is revoked: 401/403). */
  tokens: Set<string>;
  /** While set, a write (note, communication) is recorded and then never answered (the caller dies waiting). */
  holdWrites: boolean;
  /** While set, a request it matches is answered 404 (an endpoint this CRM account does not have). */
  missingIf?: (r: { method: string; path: string }) => boolean;
  /** While set, a request it matches is never answered (nothing is done). */
  holdIf?: (r: { method: string; path: string }) => boolean;
  /** Resolves once a request has been held (a write recorded while holding, or one holdIf matched). */
  heldWrite(): Promise<void>;
  close(): Promise<void>;
}

type Handler = (
  req: { method: string; url: URL; headers: http.IncomingHttpHeaders; body: unknown },
  res: http.ServerResponse,
) => void;

async function serve(
  authorized: (req: { url: URL; headers: http.IncomingHttpHeaders }, tokens: Set<string>) => boolean,
  unauthorized: (res: http.ServerResponse) => void,
  rateLimited: (res: http.ServerResponse, seconds: number) => void,
  handler: (s: CrmServer) => Handler,
): Promise<CrmServer> {
  let limited = 0;
  let limitSeconds = 1;
  let heldResolve: (() => void) | undefined;
  let heldPromise = new Promise<void>((r) => {
    heldResolve = r;
  });
  const state: CrmServer = {
    url: '',
    requests: [],
    tokens: new Set(),
    holdWrites: false,
    rateLimitNext(n, seconds = 1) {
      limited = n;
      limitSeconds = seconds;
    },
    heldWrite: () => heldPromise,
    close: () => closeServer(server),
  };
  const h = handler(state);
  const server = http.createServer((req, res) => {
    readBody(req, (raw) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        replyJson(res, 400, { message: 'Invalid JSON' });
        return;
      }
      state.requests.push({ method: req.method ?? '', path: url.pathname + url.search, body });
      if (limited > 0) {
        limited--;
        rateLimited(res, limitSeconds);
        return;
      }
      if (!authorized({ url, headers: req.headers }, state.tokens)) return unauthorized(res);
      if (state.holdIf?.({ method: req.method ?? '', path: url.pathname + url.search })) return hold(state);
      if (state.missingIf?.({ method: req.method ?? '', path: url.pathname + url.search }))
        return replyJson(res, 404, {
          success: false,
          error: 'Not found',
          errorCode: 404,
          message: 'Not found',
        });
      h({ method: req.method ?? '', url, headers: req.headers, body }, res);
    });
  });
  state.url = await listenLoopback(server);
  // A held write: the record is kept, the answer never comes.
  (state as { hold: () => void } & CrmServer).hold = () => {
    heldResolve?.();
    heldPromise = new Promise<void>((r) => {
      heldResolve = r;
    });
  };
  return state;
}

const hold = (s: CrmServer) => (s as unknown as { hold: () => void }).hold();

// ---- HubSpot ----------------------------------------------------------------------------------

export interface HubspotContact {
  id: string;
  properties: Record<string, string | null>;
  updatedAt: string;
}

export interface HubspotServer extends CrmServer {
  contacts: HubspotContact[];
  /** Contact property names that exist (custom ones are created through the properties API). */
  properties: Set<string>;
  lists: Map<string, string[]>;
  communications: { id: string; properties: Record<string, string>; contactIds: string[] }[];
  /** Adds or changes a contact; hs_lastmodifieddate moves to `at` (ms; now by default). */
  upsert(id: string, props: Record<string, string | null>, at?: number): void;
}

const HUBSPOT_DEFAULT = ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'];
const HUBSPOT_KNOWN = [...HUBSPOT_DEFAULT, 'phone', 'mobilephone', 'hs_lastmodifieddate'];

/** HubSpot CRM v3: Bearer private-app tokens, `after` cursors, 100-record pages (search up to 200). */
export async function hubspotServer(): Promise<HubspotServer> {
  const contacts: HubspotContact[] = [];
  const properties = new Set(HUBSPOT_KNOWN);
  const lists = new Map<string, string[]>();
  const communications: HubspotServer['communications'] = [];
  let clock = Date.now() - 3_600_000;
  const err = (res: http.ServerResponse, status: number, category: string, message: string, extra = {}) =>
    replyJson(res, status, {
      status: 'error',
      message,
      correlationId: 'c0ffee00-0000-4000-8000-000000000000',
      category,
      ...extra,
    });
  const shape = (c: HubspotContact, asked: string[] | undefined) => {
    const names = asked && asked.length > 0 ? asked : HUBSPOT_DEFAULT;
    const props: Record<string, string | null> = {};
    // Asked-for properties come back, null when unset.
    for (const n of names) if (properties.has(n)) props[n] = c.properties[n] ?? null;
    props.hs_object_id = c.id;
    return { id: c.id, properties: props, createdAt: c.updatedAt, updatedAt: c.updatedAt, archived: false };
  };
  const pageOf = <T>(items: T[], after: string | null, limit: number) => {
    const start = after ? Number(after) : 0;
    const slice = items.slice(start, start + limit);
    const next = start + limit < items.length ? String(start + limit) : undefined;
    return { slice, paging: next ? { next: { after: next, link: `?after=${next}` } } : undefined };
  };
  const s = (await serve(
    ({ headers }, tokens) => {
      const m = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''));
      return !!m && tokens.has(m[1]);
    },
    (res) =>
      err(
        res,
        401,
        'INVALID_AUTHENTICATION',
        'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
      ),
    (res, seconds) => {
      res.setHeader('retry-after', String(seconds));
      err(res, 429, 'RATE_LIMITS', 'You have reached your secondly limit.', {
        errorType: 'RATE_LIMIT',
        policyName: 'SECONDLY',
      });
    },
    (state) => (req, res) => {
      const { method, url, body } = req;
      const p = url.pathname;
      const b = (body ?? {}) as Record<string, any>;
      if (method === 'GET' && p === '/crm/v3/objects/contacts') {
        const limit = Math.min(Number(url.searchParams.get('limit') ?? 10), 100);
        const asked = url.searchParams.get('properties')?.split(',').filter(Boolean);
        const sorted = [...contacts].sort((x, y) => Number(x.id) - Number(y.id));
        const { slice, paging } = pageOf(sorted, url.searchParams.get('after'), limit);
        return replyJson(res, 200, {
          results: slice.map((c) => shape(c, asked)),
          ...(paging ? { paging } : {}),
        });
      }
      if (method === 'POST' && p === '/crm/v3/objects/contacts/search') {
        const limit = Math.min(Number(b.limit ?? 10), 200);
        let found = [...contacts];
        for (const g of b.filterGroups ?? [])
          for (const f of g.filters ?? []) {
            if (f.propertyName === 'hs_lastmodifieddate' && f.operator === 'GTE')
              found = found.filter((c) => Date.parse(c.updatedAt) >= Number(f.value));
          }
        found.sort(
          (x, y) => Date.parse(x.updatedAt) - Date.parse(y.updatedAt) || Number(x.id) - Number(y.id),
        );
        const { slice, paging } = pageOf(found, b.after ?? null, limit);
        return replyJson(res, 200, {
          total: found.length,
          results: slice.map((c) => shape(c, b.properties)),
          ...(paging ? { paging } : {}),
        });
      }
      let m = /^\/crm\/v3\/objects\/contacts\/(\d+)$/.exec(p);
      if (m && method === 'PATCH') {
        const c = contacts.find((x) => x.id === m?.[1]);
        if (!c) return err(res, 404, 'OBJECT_NOT_FOUND', 'resource not found');
        const bad = Object.keys(b.properties ?? {}).filter((k) => !properties.has(k));
        if (bad.length > 0)
          return err(
            res,
            400,
            'VALIDATION_ERROR',
            `Property values were not valid: ${JSON.stringify(bad.map((name) => ({ isValid: false, message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST', name })))}`,
            {
              errors: bad.map((name) => ({
                message: `Property "${name}" does not exist`,
                code: 'PROPERTY_DOESNT_EXIST',
                context: { propertyName: [name] },
              })),
            },
          );
        Object.assign(c.properties, b.properties);
        return replyJson(res, 200, shape(c, Object.keys(b.properties ?? {})));
      }
      if (method === 'POST' && p === '/crm/v3/properties/contacts') {
        const missing = ['name', 'label', 'type', 'fieldType', 'groupName'].filter(
          (k) => typeof b[k] !== 'string' || !b[k],
        );
        if (missing.length > 0)
          return err(res, 400, 'VALIDATION_ERROR', `Missing required fields: ${missing.join(', ')}`);
        if (properties.has(b.name))
          return err(res, 409, 'OBJECT_ALREADY_EXISTS', `A property named '${b.name}' already exists.`);
        properties.add(b.name);
        return replyJson(res, 201, {
          name: b.name,
          label: b.label,
          type: b.type,
          fieldType: b.fieldType,
          groupName: b.groupName,
        });
      }
      if (method === 'POST' && p === '/crm/v3/objects/communications/batch/create') {
        const results = [];
        for (const input of b.inputs ?? []) {
          const contactIds = (input.associations ?? []).map((a: any) => String(a.to?.id));
          const rec = {
            id: String(90000000000 + communications.length + 1),
            properties: input.properties,
            contactIds,
          };
          communications.push(rec);
          results.push({
            id: rec.id,
            properties: rec.properties,
            createdAt: new Date().toISOString(),
            archived: false,
          });
        }
        if (state.holdWrites) return hold(state);
        return replyJson(res, 201, {
          status: 'COMPLETE',
          results,
          startedAt: new Date().toISOString(),
          completedAt: new Date().toISOString(),
        });
      }
      if (method === 'POST' && p === '/crm/v3/objects/communications/search') {
        let found = [...communications];
        for (const g of b.filterGroups ?? [])
          for (const f of g.filters ?? [])
            if (f.propertyName === 'associations.contact')
              found = found.filter((c) => c.contactIds.includes(String(f.value)));
        return replyJson(res, 200, {
          total: found.length,
          results: found.slice(0, Number(b.limit ?? 10)).map((c) => ({
            id: c.id,
            properties: { hs_communication_body: c.properties.hs_communication_body },
          })),
        });
      }
      m = /^\/crm\/v3\/lists\/([^/]+)\/memberships$/.exec(p);
      if (m && method === 'GET') {
        const ids = lists.get(m[1]);
        if (!ids) return err(res, 404, 'OBJECT_NOT_FOUND', 'List does not exist');
        const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 250);
        const { slice, paging } = pageOf(ids, url.searchParams.get('after'), limit);
        return replyJson(res, 200, {
          results: slice.map((recordId) => ({ recordId, membershipTimestamp: new Date().toISOString() })),
          ...(paging ? { paging } : {}),
        });
      }
      return err(res, 404, 'OBJECT_NOT_FOUND', `No route ${method} ${p}`);
    },
  )) as HubspotServer;
  s.contacts = contacts;
  s.properties = properties;
  s.lists = lists;
  s.communications = communications;
  s.upsert = (id, props, when) => {
    clock = when ?? Math.max(clock + 1, Date.now());
    const at = new Date(clock).toISOString();
    const c = contacts.find((x) => x.id === id);
    if (c) {
      Object.assign(c.properties, props);
      c.updatedAt = at;
      c.properties.hs_lastmodifieddate = at;
    } else contacts.push({ id, properties: { ...props, hs_lastmodifieddate: at }, updatedAt: at });
  };
  return s;
}

// ---- Pipedrive --------------------------------------------------------------------------------

export interface PipedrivePerson {
  id: number;
  name: string;
  first_name: string | null;
  last_name: string | null;
  phone: { label?: string; value: string; primary: boolean }[];
  email: { label?: string; value: string; primary: boolean }[];
  update_time: string;
}

export interface PipedriveServer extends CrmServer {
  persons: PipedrivePerson[];
  filters: Map<number, number[]>;
  notes: { id: number; content: string; person_id: number }[];
  /** Adds or changes a person; update_time moves to `at` (ms; now by default). */
  upsert(p: { id: number; first?: string; last?: string; phone?: string; email?: string; at?: number }): void;
}

const pdTime = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/** Pipedrive v1: `api_token` parameter, `start`/`limit` paging with more_items_in_collection, data: null when empty. */
export async function pipedriveServer(): Promise<PipedriveServer> {
  const persons: PipedrivePerson[] = [];
  const filters = new Map<number, number[]>();
  const notes: PipedriveServer['notes'] = [];
  let clock = Date.now() - 3_600_000;
  const pageOf = <T>(items: T[], url: URL) => {
    const start = Number(url.searchParams.get('start') ?? 0);
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 100), 500);
    const slice = items.slice(start, start + limit);
    const more = start + limit < items.length;
    return {
      success: true,
      data: slice.length > 0 ? slice : null,
      additional_data: {
        pagination: {
          start,
          limit,
          more_items_in_collection: more,
          ...(more ? { next_start: start + limit } : {}),
        },
      },
    };
  };
  const s = (await serve(
    ({ url, headers }, tokens) =>
      tokens.has(url.searchParams.get('api_token') ?? String(headers['x-api-token'] ?? '')),
    (res) =>
      replyJson(res, 401, {
        success: false,
        error: 'unauthorized access',
        errorCode: 401,
        error_info: 'Please check developers.pipedrive.com',
      }),
    (res, seconds) => {
      res.setHeader('retry-after', String(seconds));
      replyJson(res, 429, { success: false, error: 'Request over limit', errorCode: 429 });
    },
    (state) => (req, res) => {
      const { method, url, body } = req;
      const p = url.pathname;
      const b = (body ?? {}) as Record<string, any>;
      if (method === 'GET' && p === '/v1/users/me')
        return replyJson(res, 200, { success: true, data: { id: 1, name: 'Owner' } });
      if (method === 'GET' && p === '/v1/persons') {
        const filter = url.searchParams.get('filter_id');
        let list = [...persons].sort((x, y) => x.id - y.id);
        if (filter) {
          const ids = filters.get(Number(filter));
          if (!ids) return replyJson(res, 400, { success: false, error: 'Filter not found', errorCode: 400 });
          list = list.filter((x) => ids.includes(x.id));
        }
        return replyJson(res, 200, pageOf(list, url));
      }
      if (method === 'GET' && p === '/v1/recents') {
        const since = url.searchParams.get('since_timestamp') ?? '';
        if (!/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(since))
          return replyJson(res, 400, {
            success: false,
            error: 'since_timestamp must be YYYY-MM-DD HH:MM:SS',
            errorCode: 400,
          });
        const list = persons
          .filter((x) => x.update_time >= since)
          .sort((x, y) => x.update_time.localeCompare(y.update_time) || x.id - y.id)
          .map((x) => ({ item: 'person', id: x.id, data: x }));
        const page = pageOf(list, url);
        return replyJson(res, 200, {
          ...page,
          additional_data: { since_timestamp: since, ...page.additional_data },
        });
      }
      if (method === 'POST' && p === '/v1/notes') {
        if (!b.content || !persons.some((x) => x.id === Number(b.person_id)))
          return replyJson(res, 400, {
            success: false,
            error: 'Note content and a valid person_id are required',
            errorCode: 400,
          });
        const note = { id: notes.length + 1, content: String(b.content), person_id: Number(b.person_id) };
        notes.push(note);
        if (state.holdWrites) return hold(state);
        return replyJson(res, 201, { success: true, data: note });
      }
      if (method === 'GET' && p === '/v1/notes') {
        const pid = Number(url.searchParams.get('person_id'));
        return replyJson(
          res,
          200,
          pageOf(
            notes.filter((n) => !pid || n.person_id === pid),
            url,
          ),
        );
      }
      return replyJson(res, 404, { success: false, error: 'Unknown method .', errorCode: 404 });
    },
  )) as PipedriveServer;
  s.persons = persons;
  s.filters = filters;
  s.notes = notes;
  s.upsert = ({ id, first, last, phone, email, at }) => {
    clock = at ?? Math.max(clock + 1, Date.now());
    const existing = persons.find((x) => x.id === id);
    const rec: PipedrivePerson = {
      id,
      name: [first, last].filter(Boolean).join(' '),
      first_name: first ?? null,
      last_name: last ?? null,
      // A person without a phone: [{value: "", primary: true}].
      phone: [{ label: 'mobile', value: phone ?? '', primary: true }],
      email: [{ label: 'work', value: email ?? '', primary: true }],
      update_time: pdTime(new Date(clock)),
    };
    if (existing) Object.assign(existing, rec);
    else persons.push(rec);
  };
  return s;
}

// ---- ActiveCampaign ---------------------------------------------------------------------------

export interface AcContact {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  cdate: string;
  udate: string;
}

export interface ActiveCampaignServer extends CrmServer {
  contacts: AcContact[];
  lists: Map<string, string[]>;
  notes: { id: string; note: string; relid: string; reltype: string }[];
  /** Adds or changes a contact; udate moves to `at` (ms; now by default). */
  upsert(c: { id: number; first?: string; last?: string; phone?: string; email?: string; at?: number }): void;
}

/** An ActiveCampaign date: local time with its offset (-05:00). */
const acDate = (ms: number) => `${new Date(ms - 5 * 3_600_000).toISOString().slice(0, 19)}-05:00`;

/** ActiveCampaign v3 under /api/3: `Api-Token` header, `limit`/`offset` paging with meta.total a string, string ids. */
export async function activecampaignServer(): Promise<ActiveCampaignServer> {
  const contacts: AcContact[] = [];
  const lists = new Map<string, string[]>();
  const notes: ActiveCampaignServer['notes'] = [];
  let clock = Date.now() - 3_600_000;
  const s = (await serve(
    ({ headers }, tokens) => tokens.has(String(headers['api-token'] ?? '')),
    (res) => replyJson(res, 403, { message: 'No Result found for User with id 0' }),
    (res, seconds) => {
      res.setHeader('retry-after', String(seconds));
      replyJson(res, 429, { message: 'Too Many Requests' });
    },
    (state) => (req, res) => {
      const { method, url, body } = req;
      const p = url.pathname;
      const b = (body ?? {}) as Record<string, any>;
      if (method === 'GET' && p === '/api/3/users/me')
        return replyJson(res, 200, { user: { id: '1', username: 'owner' } });
      if (method === 'GET' && p === '/api/3/contacts') {
        const limit = Math.min(Number(url.searchParams.get('limit') ?? 20), 100);
        const offset = Number(url.searchParams.get('offset') ?? 0);
        let list = [...contacts].sort((x, y) => Number(x.id) - Number(y.id));
        const after = url.searchParams.get('filters[updated_after]');
        if (after) list = list.filter((c) => Date.parse(c.udate) >= Date.parse(after));
        const listid = url.searchParams.get('listid');
        if (listid) list = list.filter((c) => (lists.get(listid) ?? []).includes(c.id));
        return replyJson(res, 200, {
          scoreValues: [],
          contacts: list.slice(offset, offset + limit),
          meta: {
            total: String(list.length),
            page_input: { segmentid: null, formid: 0, listid: listid ?? 0, tagid: 0, limit, offset },
          },
        });
      }
      if (method === 'POST' && p === '/api/3/notes') {
        const n = b.note ?? {};
        if (!n.note || !contacts.some((c) => c.id === String(n.relid)))
          return replyJson(res, 422, {
            errors: [
              {
                title: 'The note could not be created',
                detail: '',
                code: 'invalid',
                source: { pointer: '/data/attributes/note' },
              },
            ],
          });
        const rec = {
          id: String(notes.length + 1),
          note: String(n.note),
          relid: String(n.relid),
          reltype: String(n.reltype),
        };
        notes.push(rec);
        if (state.holdWrites) return hold(state);
        return replyJson(res, 201, { note: { ...rec, cdate: acDate(Date.now()) } });
      }
      const m = /^\/api\/3\/contacts\/(\d+)\/notes$/.exec(p);
      if (m && method === 'GET') return replyJson(res, 200, { notes: notes.filter((n) => n.relid === m[1]) });
      return replyJson(res, 404, { message: 'No Result found' });
    },
  )) as ActiveCampaignServer;
  s.contacts = contacts;
  s.lists = lists;
  s.notes = notes;
  s.upsert = ({ id, first, last, phone, email, at }) => {
    clock = at ?? Math.max(clock + 1, Date.now());
    const existing = contacts.find((x) => x.id === String(id));
    const rec: AcContact = {
      id: String(id),
      email: email ?? '',
      firstName: first ?? '',
      lastName: last ?? '',
      phone: phone ?? '',
      cdate: existing?.cdate ?? acDate(clock),
      udate: acDate(clock),
    };
    if (existing) Object.assign(existing, rec);
    else contacts.push(rec);
  };
  return s;
}

export { http };
