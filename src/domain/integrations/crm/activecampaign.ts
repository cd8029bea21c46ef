import {
  type CrmClient,
  type CrmPage,
  type CrmPerson,
  crmId,
  expectOk,
  type JsonRequester,
  noteText,
  str,
} from './types.ts';

function person(r: unknown): CrmPerson | undefined {
  const c = r as Record<string, unknown>;
  // Ids (and meta.total) are strings.
  const id = crmId(c?.id);
  if (id === undefined) return undefined;
  return {
    id,
    firstName: str(c.firstName),
    lastName: str(c.lastName),
    email: str(c.email),
    phone: str(c.phone),
  };
}

/** `offset` paging against `meta.total` (a string). */
function page(body: unknown, offset: number): CrmPage {
  const b = body as { contacts?: unknown[]; meta?: { total?: unknown } };
  const raw = Array.isArray(b?.contacts) ? b.contacts : [];
  const people = raw.map(person).filter((p) => p !== undefined);
  const total = Number(b?.meta?.total ?? 0);
  const nextOffset = offset + raw.length;
  return { people, next: raw.length > 0 && nextOffset < total ? String(nextOffset) : undefined };
}

/** ActiveCampaign's API v3 at the account's own address, with its key in the `Api-Token` header. */
export function activecampaignClient(http: JsonRequester, apiUrl: string, apiKey: string): CrmClient {
  const root = `${apiUrl.replace(/\/+$/, '')}/api/3`;
  const headers = { 'api-token': apiKey };
  const call = async (method: string, path: string, what: string, body?: unknown) =>
    expectOk(await http.request(method, `${root}${path}`, { headers, body }), what, 'ActiveCampaign');
  const offsetOf = (cursor?: string) => (cursor && /^\d{1,9}$/.test(cursor) ? Number(cursor) : 0);
  const contacts = async (extra: Record<string, string>, cursor?: string) => {
    const offset = offsetOf(cursor);
    const q = new URLSearchParams({ limit: '100', offset: String(offset), 'orders[id]': 'ASC', ...extra });
    return page(await call('GET', `/contacts?${q}`, 'listing contacts'), offset);
  };

  return {
    async verify() {
      await call('GET', '/users/me', 'reading the user');
    },
    allPeople: (cursor) => contacts({}, cursor),
    changedPeople: (since, cursor) => contacts({ 'filters[updated_after]': since }, cursor),
    async listMembers(listId, cursor) {
      const p = await contacts({ listid: listId }, cursor);
      return { ids: p.people.map((x) => x.id), people: p.people, next: p.next };
    },
    async write(items) {
      // Opt-outs, opt-ins and messages are notes on the contact.
      for (const w of items)
        await call('POST', '/notes', 'adding a note', {
          note: { note: noteText(w), relid: String(w.crmId), reltype: 'Subscriber' },
        });
    },
    async written(id, markers) {
      const found = new Set<string>();
      const b = (await call('GET', `/contacts/${id}/notes`, 'reading notes')) as {
        notes?: { note?: unknown }[];
      };
      for (const n of b?.notes ?? [])
        for (const m of markers) if (String(n?.note ?? '').includes(`[${m}]`)) found.add(m);
      return found;
    },
  };
}
