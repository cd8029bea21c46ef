import {
  type CrmClient,
  CrmError,
  type CrmPage,
  type CrmPerson,
  type CrmWrite,
  crmId,
  expectOk,
  type JsonRequester,
  noteText,
  str,
} from './types.ts';

/** The contact properties the sync asks for (list and search answer only default ones otherwise). */
export const HUBSPOT_PROPERTIES = [
  'firstname',
  'lastname',
  'email',
  'mobilephone',
  'phone',
  'hs_lastmodifieddate',
];
/** The date properties opt-outs and opt-ins are written to, created when absent. */
export const HUBSPOT_OPT_PROPERTIES = {
  'opt-out': 'sparrow_opted_out',
  'opt-in': 'sparrow_opted_in',
} as const;
/** HubSpot-defined association type of a communication to a contact. */
const COMMUNICATION_TO_CONTACT = 81;

function person(r: unknown): CrmPerson | undefined {
  const rec = r as { id?: unknown; properties?: Record<string, unknown> };
  const id = crmId(rec?.id);
  if (id === undefined) return undefined;
  const p = rec.properties ?? {};
  return {
    id,
    firstName: str(p.firstname),
    lastName: str(p.lastname),
    email: str(p.email),
    // A contact's mobile is mobilephone, else phone.
    phone: str(p.mobilephone) ?? str(p.phone),
  };
}

function page(body: unknown): CrmPage {
  const b = body as { results?: unknown[]; paging?: { next?: { after?: unknown } } };
  const people = (Array.isArray(b?.results) ? b.results : []).map(person).filter((p) => p !== undefined);
  const after = b?.paging?.next?.after;
  return { people, next: typeof after === 'string' || typeof after === 'number' ? String(after) : undefined };
}

/** HubSpot's CRM API v3 with a private-app access token (Bearer). */
export function hubspotClient(http: JsonRequester, base: string, accessToken: string): CrmClient {
  const root = base.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${accessToken}` };
  const call = async (method: string, path: string, what: string, body?: unknown) =>
    expectOk(await http.request(method, `${root}${path}`, { headers, body }), what, 'HubSpot');

  async function ensureProperty(name: string, label: string) {
    const r = await http.request('POST', `${root}/crm/v3/properties/contacts`, {
      headers,
      body: { name, label, type: 'date', fieldType: 'date', groupName: 'contactinformation' },
    });
    // 409: it exists already (another worker made it).
    if (r.status !== 409) expectOk(r, `creating the property ${name}`, 'HubSpot');
  }

  async function setOpt(w: CrmWrite) {
    const prop = HUBSPOT_OPT_PROPERTIES[w.kind as 'opt-out' | 'opt-in'];
    const body = { properties: { [prop]: w.at.slice(0, 10) } };
    const path = `/crm/v3/objects/contacts/${w.crmId}`;
    const r = await http.request('PATCH', `${root}${path}`, { headers, body });
    if (r.status === 400 && JSON.stringify(r.body ?? '').includes('PROPERTY_DOESNT_EXIST')) {
      await ensureProperty(prop, prop === 'sparrow_opted_out' ? 'Sparrow opted out' : 'Sparrow opted in');
      await call('PATCH', path, `setting ${prop}`, body);
      return;
    }
    expectOk(r, `setting ${prop}`, 'HubSpot');
  }

  return {
    async verify() {
      await call('GET', '/crm/v3/objects/contacts?limit=1', 'reading contacts');
    },
    async allPeople(cursor) {
      const q = new URLSearchParams({ limit: '100', properties: HUBSPOT_PROPERTIES.join(',') });
      if (cursor) q.set('after', cursor);
      return page(await call('GET', `/crm/v3/objects/contacts?${q}`, 'listing contacts'));
    },
    async changedPeople(since, cursor) {
      const body = {
        filterGroups: [
          {
            filters: [
              { propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(Date.parse(since)) },
            ],
          },
        ],
        sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
        properties: HUBSPOT_PROPERTIES,
        limit: 100,
        ...(cursor ? { after: cursor } : {}),
      };
      return page(await call('POST', '/crm/v3/objects/contacts/search', 'searching contacts', body));
    },
    async listMembers(listId, cursor) {
      const q = new URLSearchParams({ limit: '100' });
      if (cursor) q.set('after', cursor);
      const b = (await call(
        'GET',
        `/crm/v3/lists/${encodeURIComponent(listId)}/memberships?${q}`,
        'reading list memberships',
      )) as { results?: { recordId?: unknown }[]; paging?: { next?: { after?: unknown } } };
      const ids = (Array.isArray(b?.results) ? b.results : [])
        .map((m) => crmId(m?.recordId))
        .filter((n) => n !== undefined);
      const after = b?.paging?.next?.after;
      return { ids, people: [], next: after !== undefined && after !== null ? String(after) : undefined };
    },
    async write(items) {
      const messages = items.filter((w) => w.kind === 'message');
      for (const w of items) if (w.kind !== 'message') await setOpt(w);
      for (let i = 0; i < messages.length; i += 100) {
        const inputs = messages.slice(i, i + 100).map((w) => ({
          properties: {
            hs_communication_channel_type: 'SMS',
            hs_communication_logged_from: 'CRM',
            hs_communication_body: noteText(w),
            hs_timestamp: w.at,
          },
          associations: [
            {
              to: { id: String(w.crmId) },
              types: [
                { associationCategory: 'HUBSPOT_DEFINED', associationTypeId: COMMUNICATION_TO_CONTACT },
              ],
            },
          ],
        }));
        await call('POST', '/crm/v3/objects/communications/batch/create', 'logging messages', { inputs });
      }
    },
    async written(id, markers) {
      const found = new Set<string>();
      if (markers.every((m) => !m.startsWith('sparrow:message'))) return found;
      const b = (await call('POST', '/crm/v3/objects/communications/search', 'searching communications', {
        filterGroups: [
          { filters: [{ propertyName: 'associations.contact', operator: 'EQ', value: String(id) }] },
        ],
        properties: ['hs_communication_body'],
        sorts: [{ propertyName: 'hs_timestamp', direction: 'DESCENDING' }],
        limit: 100,
      })) as { results?: { properties?: { hs_communication_body?: unknown } }[] };
      for (const r of b?.results ?? []) {
        const text = String(r?.properties?.hs_communication_body ?? '');
        for (const m of markers) if (text.includes(`[${m}]`)) found.add(m);
      }
      return found;
    },
  };
}

export { CrmError };
