import type { Queryable } from '../../db/client.ts';
import { findMembersByIdOrEmail } from '../../db/queries/group-users.ts';
import { findHeldNumbers } from '../../db/queries/phone-numbers.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';
import { isId } from '../../util/ids.ts';

/** A number named in a group request: `{id}`, `{number}` or an E.164 string. */
export type NumberRef = string | { id?: string; number?: string };

interface TimeOfDay {
  hour: number;
  minute: number;
}

/** Office hours as the API takes and shows them. */
export interface OfficeHours {
  active: boolean;
  timezone: string;
  times: Partial<
    Record<'sun' | 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat', { start: TimeOfDay; end: TimeOfDay }[]>
  >;
}

/** A group user as a request gives it: a console user of the account, by id or e-mail. */
export interface UserInput {
  id?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  role?: string;
  mobile?: { number: string; country?: string };
  tacAccepted?: string;
}

/** The fields a group create or update may carry (absent: unchanged on update). */
export interface GroupInput {
  name?: string;
  phoneNumbers?: NumberRef[];
  'phoneNumbers?'?: NumberRef[];
  notifications?: unknown[];
  tags?: string[];
  users?: UserInput[];
  officeHours?: OfficeHours | null;
  isDefault?: boolean;
  useSharedPool?: boolean;
  /** Messages a day its numbers may send together; null: none. */
  dailyCap?: number | null;
}

/** Checks the time zone is one the runtime knows (IANA) and that each range ends after it starts. */
export function checkOfficeHours(h: OfficeHours | null | undefined): void {
  if (!h) return;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: h.timezone });
  } catch {
    fail('GRP-004', `Unknown time zone "${h.timezone}": use an IANA name such as America/New_York.`);
  }
  for (const [day, ranges] of Object.entries(h.times)) {
    for (const r of ranges ?? []) {
      if (r.end.hour * 60 + r.end.minute <= r.start.hour * 60 + r.start.minute) {
        fail('GRP-004', `Office hours on ${day}: each range must end after it starts.`);
      }
    }
  }
}

/**
 * The console users a group request names, as links: each entry names a member of the account by
 * `id` (the console user's) or `email` (USER-005 naming it when the account has no such member;
 * VAL-001 when it names neither, or an id and an e-mail of two people); its mobile is parsed as
 * contacts' are (CONT-001). Name, role and terms come from the console user, not the request. A
 * person named twice is linked once, where first named.
 */
export async function resolveGroupUsers(
  db: Queryable,
  accountId: string,
  users: UserInput[],
): Promise<{ userId: string; mobile: object | null }[]> {
  const wanted = users.map((u) => {
    const id = u.id?.toLowerCase();
    const email = u.email?.trim().toLowerCase();
    if (!id && !email)
      fail('VAL-001', 'Each group user must name a console user of the account by id or email.');
    if (id !== undefined && !isId(id)) fail('USER-005', `The account has no console user with id "${u.id}".`);
    let mobile: object | null = null;
    if (u.mobile) {
      const p = parseMobile(u.mobile.number, u.mobile.country);
      if (!p) fail('CONT-001', `Invalid mobile number for user ${u.email ?? u.id}.`);
      mobile = { country: p.country, number: p.number, valid: p.valid, lineType: p.lineType };
    }
    return { id, email, mobile };
  });
  const found = await findMembersByIdOrEmail(
    db,
    accountId,
    wanted.flatMap((w) => (w.id ? [w.id] : [])),
    wanted.flatMap((w) => (w.email ? [w.email] : [])),
  );
  const byId = new Map(found.map((f) => [f.user_id, f]));
  const byEmail = new Map(found.map((f) => [f.email, f]));
  const links = new Map<string, { userId: string; mobile: object | null }>();
  for (const w of wanted) {
    const member = w.id ? byId.get(w.id) : byEmail.get(w.email as string);
    if (!member) {
      fail(
        'USER-005',
        w.id
          ? `The account has no console user with id "${w.id}".`
          : `${w.email} is not a console user of this account: invite them first (POST …/users).`,
      );
    }
    if (w.id && w.email && member.email !== w.email)
      fail('VAL-001', `Group user ${w.id} has the e-mail ${member.email}, not ${w.email}.`);
    if (!links.has(member.user_id)) links.set(member.user_id, { userId: member.user_id, mobile: w.mobile });
  }
  return [...links.values()];
}

/** The request's number list, under either spelling; undefined when absent. */
export function numberRefs(input: GroupInput): NumberRef[] | undefined {
  return input.phoneNumbers ?? input['phoneNumbers?'];
}

/**
 * The ids of the numbers a group request names; each must be a number the account holds
 * (else NUM-001 naming it).
 */
export async function resolveNumberRefs(
  db: Queryable,
  accountId: string,
  refs: NumberRef[],
): Promise<string[]> {
  const ids: string[] = [];
  const numbers: string[] = [];
  const wanted: { ref: string; kind: 'id' | 'number'; key: string }[] = [];
  for (const r of refs) {
    const id = typeof r === 'string' ? undefined : r.id;
    const raw = typeof r === 'string' ? r : r.number;
    if (id !== undefined) {
      if (!isId(id)) fail('NUM-001', `The account holds no phone number with id "${id}".`);
      ids.push(id);
      wanted.push({ ref: id, kind: 'id', key: id.toLowerCase() });
    } else if (raw !== undefined) {
      const e164 = parseMobile(raw)?.number ?? raw.replace(/[\s()\-.]/g, '');
      numbers.push(e164);
      wanted.push({ ref: raw, kind: 'number', key: e164 });
    } else {
      fail('VAL-001', 'Each phone number must be an E.164 string or an object with id or number.');
    }
  }
  const held = await findHeldNumbers(db, accountId, ids, numbers);
  const byId = new Map(held.map((h) => [h.id, h.id]));
  const byNumber = new Map(held.map((h) => [h.number, h.id]));
  const out = new Set<string>();
  for (const w of wanted) {
    const found = w.kind === 'id' ? byId.get(w.key) : byNumber.get(w.key);
    if (!found) fail('NUM-001', `The account holds no phone number "${w.ref}".`);
    out.add(found);
  }
  return [...out];
}
