import type { JsonRequester, JsonResult } from '../../../net/request.ts';

/** The CRMs Sparrow keeps contacts in step with; each names the Contact field holding its record id. */
export const CRM_TYPES = ['hubspot', 'pipedrive', 'activecampaign'] as const;
export type CrmType = (typeof CRM_TYPES)[number];

/** A CRM person as the sync reads it (the CRM's id, names, e-mail, the phone to text). */
export interface CrmPerson {
  id: number;
  firstName?: string;
  lastName?: string;
  email?: string;
  /** The mobile number as the CRM holds it (unparsed); absent or empty when there is none. */
  phone?: string;
}

/** One page of people; `next` is the cursor of the following page (absent on the last). */
export interface CrmPage {
  people: CrmPerson[];
  next?: string;
}

/** One record Sparrow writes to a CRM: a message logged on a person, or an opt-out / opt-in. */
export interface CrmWrite {
  crmId: number;
  /** A marker carried in the note, by which a write that may have happened is recognised. */
  marker: string;
  kind: 'message' | 'opt-out' | 'opt-in';
  /** When it happened (ISO 8601). */
  at: string;
  /** A message's text and direction. */
  text?: string;
  direction?: 'inbound' | 'outbound';
  from?: string;
  to?: string;
}

/** Why a CRM call failed: `auth` (credential refused), `rate` (429), `unavailable`, `invalid` (refused the request). */
export class CrmError extends Error {
  constructor(
    readonly kind: 'auth' | 'rate' | 'unavailable' | 'invalid' | 'gone',
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** What each CRM client does. */
export interface CrmClient {
  /** Checks the credential with a cheap authenticated read; throws CrmError('auth') when refused. */
  verify(): Promise<void>;
  /** A page of every person (the full sync). */
  allPeople(cursor?: string): Promise<CrmPage>;
  /** A page of people changed at or after `since` (ISO 8601; the incremental sync). */
  changedPeople(since: string, cursor?: string): Promise<CrmPage>;
  /** A page of the people of a CRM list (HubSpot list, Pipedrive filter, ActiveCampaign list): ids only where the CRM answers only ids. */
  listMembers(
    listId: string,
    cursor?: string,
  ): Promise<{ ids: number[]; people: CrmPerson[]; next?: string }>;
  /** Writes records (messages and opt changes) to the CRM, as few calls as the CRM allows. */
  write(items: CrmWrite[]): Promise<void>;
  /** Of `markers`, the ones already written on the person `crmId` (a write whose outcome was lost). */
  written(crmId: number, markers: string[]): Promise<Set<string>>;
}

/** Throws the CrmError a failed answer stands for; answers the body of a 2xx. */
export function expectOk(r: JsonResult, what: string, crm: string): unknown {
  if (r.status !== undefined && r.status >= 200 && r.status < 300) return r.body;
  const detail = describeBody(r.body);
  if (r.status === 401 || r.status === 403)
    throw new CrmError('auth', `${crm} refused the credential (${what}: HTTP ${r.status}${detail})`);
  if (r.status === 429)
    throw new CrmError('rate', `${crm} rate limit (${what}: HTTP 429${detail})`, r.retryAfterMs ?? 10_000);
  if (r.status === 404) throw new CrmError('gone', `${crm}: not found (${what}${detail})`);
  if (r.status !== undefined && r.status >= 400 && r.status < 500)
    throw new CrmError('invalid', `${crm} refused ${what} (HTTP ${r.status}${detail})`);
  throw new CrmError(
    'unavailable',
    `${crm} could not be reached (${what}: ${r.error ?? `HTTP ${r.status}`}${detail})`,
    r.retryAfterMs,
  );
}

function describeBody(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const b = body as Record<string, unknown>;
  const text =
    b.message ??
    b.error ??
    (Array.isArray(b.errors) ? (b.errors[0] as { title?: string })?.title : undefined);
  return typeof text === 'string' ? `: ${text.slice(0, 200)}` : '';
}

/** An integer id from a CRM's string or number; undefined when it is not a positive safe integer. */
export function crmId(v: unknown): number | undefined {
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 255) : undefined;

/** The text of a note Sparrow writes: what happened, and its marker. */
export function noteText(w: CrmWrite): string {
  if (w.kind === 'message') {
    const dir = w.direction === 'inbound' ? `SMS received from ${w.from ?? ''}` : `SMS sent to ${w.to ?? ''}`;
    return `${dir} (${w.at}): ${w.text ?? ''}\n[${w.marker}]`;
  }
  return `${w.kind === 'opt-out' ? 'Opted out of SMS' : 'Opted in to SMS'} in Sparrow at ${w.at}\n[${w.marker}]`;
}

export type { JsonRequester };
