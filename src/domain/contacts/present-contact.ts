import type { Static } from '@sinclair/typebox';
import type { ContactRow } from '../../db/queries/contacts.ts';
import type { Contact as ContactSchema } from '../../schemas/contacts.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** A list membership as shown inside a contact. */
export interface ContactListMembership {
  id: string;
  name: string;
  opt_in_at: Date | string | null;
  opt_out_at: Date | string | null;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/**
 * The Contact shape of the API (memberships in `lists` when given). Unset fields (no e-mail, never
 * opted out…) are left out, not answered as null: the published description marks nothing nullable.
 */
export function presentContact(c: ContactRow, lists: ContactListMembership[] = []) {
  const crm: Record<string, unknown> = {};
  // CRM-integration fields (each named after the CRM, `{id}`) appear only when the contact has them.
  for (const [name, value] of Object.entries(c.integrations ?? {})) {
    if (value && typeof value === 'object') crm[name] = value;
  }
  return omitNullsAs<Static<typeof ContactSchema>>({
    id: c.id,
    email: c.email,
    firstName: c.first_name,
    lastName: c.last_name,
    // The same object as sparrow_contact_mobile() (migration 0210) builds inside a Message.
    mobile: c.mobile_number
      ? omitNulls({
          country: c.mobile_country,
          number: c.mobile_number,
          verified: iso(c.mobile_verified_at),
          valid: c.mobile_valid,
          lineType: c.mobile_line_type,
        })
      : null,
    lists: lists.map((l) =>
      omitNulls({ id: l.id, name: l.name, optIn: iso(l.opt_in_at), optOut: iso(l.opt_out_at) }),
    ),
    attributes: c.attributes ?? {},
    tags: c.tags ?? [],
    optIn: iso(c.opt_in_at),
    optOut: iso(c.opted_out_at),
    blocked: iso(c.blocked_at),
    valid: c.valid,
    error: c.error,
    created: stamp(c.created_at, c.created_by),
    updated: stamp(c.updated_at, c.updated_by),
    ...crm,
  });
}

/** The Contact shape's type. */
export type Contact = ReturnType<typeof presentContact>;
