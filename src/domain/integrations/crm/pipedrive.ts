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

type Field = { value?: unknown; primary?: unknown }[] | string | undefined;

/** The primary (else first) non-empty value of a Pipedrive multi-value field (phone, email). */
function primary(f: Field): string | undefined {
  if (typeof f === 'string') return str(f);
  if (!Array.isArray(f)) return undefined;
  const filled = f.filter((v) => str(v?.value) !== undefined);
  return str((filled.find((v) => v?.primary === true) ?? filled[0])?.value);
}

function person(r: unknown): CrmPerson | undefined {
  const p = r as Record<string, unknown>;
  const id = crmId(p?.id);
  if (id === undefined) return undefined;
  return {
    id,
    firstName: str(p.first_name),
    lastName: str(p.last_name),
    email: primary(p.email as Field),
    // A person without a phone has phone: [{value: "", primary: true}].
    phone: primary(p.phone as Field),
  };
}

/** `start`/`more_items_in_collection` paging; an empty page has data: null. */
function page(body: unknown, unwrap: (d: unknown) => unknown = (d) => d): CrmPage {
  const b = body as {
    data?: unknown[] | null;
    additional_data?: { pagination?: { more_items_in_collection?: unknown; next_start?: unknown } };
  };
  const people = (Array.isArray(b?.data) ? b.data : [])
    .map(unwrap)
    .map(person)
    .filter((p) => p !== undefined);
  const pg = b?.additional_data?.pagination;
  const next =
    pg?.more_items_in_collection === true && typeof pg.next_start === 'number'
      ? String(pg.next_start)
      : undefined;
  return { people, next };
}

/** Pipedrive's `YYYY-MM-DD HH:MM:SS` in UTC. */
const pipedriveTime = (iso: string) => new Date(iso).toISOString().slice(0, 19).replace('T', ' ');

/** Pipedrive's API v1 with a personal API token (`api_token`). */
export function pipedriveClient(http: JsonRequester, base: string, apiToken: string): CrmClient {
  const root = base.replace(/\/+$/, '');
  const headers = { 'x-api-token': apiToken };
  // The token goes as the documented `api_token` parameter and as the header (either is accepted).
  const withToken = (path: string) =>
    `${root}${path}${path.includes('?') ? '&' : '?'}api_token=${encodeURIComponent(apiToken)}`;
  const call = async (method: string, path: string, what: string, body?: unknown) =>
    expectOk(await http.request(method, withToken(path), { headers, body }), what, 'Pipedrive');
  const startOf = (cursor?: string) => (cursor && /^\d{1,9}$/.test(cursor) ? cursor : '0');

  return {
    async verify() {
      await call('GET', '/v1/users/me', 'reading the user');
    },
    async allPeople(cursor) {
      const q = new URLSearchParams({ start: startOf(cursor), limit: '100' });
      return page(await call('GET', `/v1/persons?${q}`, 'listing persons'));
    },
    async changedPeople(since, cursor) {
      const q = new URLSearchParams({
        since_timestamp: pipedriveTime(since),
        items: 'person',
        start: startOf(cursor),
        limit: '100',
      });
      return page(await call('GET', `/v1/recents?${q}`, 'reading recent changes'), (d) => {
        const item = d as { item?: unknown; data?: unknown };
        return item?.item === 'person' ? item.data : undefined;
      });
    },
    async listMembers(filterId, cursor) {
      const q = new URLSearchParams({ filter_id: filterId, start: startOf(cursor), limit: '100' });
      const p = page(await call('GET', `/v1/persons?${q}`, 'listing the filter'));
      return { ids: p.people.map((x) => x.id), people: p.people, next: p.next };
    },
    async write(items) {
      // Opt-outs, opt-ins and messages are notes on the person.
      for (const w of items)
        await call('POST', '/v1/notes', 'adding a note', { content: noteText(w), person_id: w.crmId });
    },
    async written(id, markers) {
      const found = new Set<string>();
      let start = 0;
      for (let pages = 0; pages < 10; pages++) {
        const q = new URLSearchParams({ person_id: String(id), start: String(start), limit: '100' });
        const b = (await call('GET', `/v1/notes?${q}`, 'reading notes')) as {
          data?: { content?: unknown }[] | null;
          additional_data?: { pagination?: { more_items_in_collection?: unknown; next_start?: unknown } };
        };
        for (const n of b?.data ?? [])
          for (const m of markers) if (String(n?.content ?? '').includes(`[${m}]`)) found.add(m);
        const pg = b?.additional_data?.pagination;
        if (pg?.more_items_in_collection !== true || typeof pg.next_start !== 'number') break;
        start = pg.next_start;
      }
      return found;
    },
  };
}
