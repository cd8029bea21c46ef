import type { Static } from '@sinclair/typebox';
import type { Queryable } from '../../db/client.ts';
import type { CallRow } from '../../db/queries/calls.ts';
import { findContacts } from '../../db/queries/contacts.ts';
import { type GroupRow, getGroup } from '../../db/queries/groups.ts';
import { getPhoneNumber, type PhoneNumberRow } from '../../db/queries/phone-numbers.ts';
import type { Call as CallSchema } from '../../schemas/calls.ts';
import { omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';
import { type Contact, presentContact } from '../contacts/present-contact.ts';
import {
  type GroupView,
  type PhoneNumberView,
  presentGroups,
  presentPhoneNumbers,
} from '../numbers/present.ts';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/**
 * The Call shape of the API, plus `from`, `to`, `action`, the recording's details and `ended`. Unset
 * fields are left out, never null (`user` always: calls are forwarded, not taken by a user).
 */
export function presentCall(
  c: CallRow,
  related: { contact: Contact | null; phoneNumber: PhoneNumberView | null; group: GroupView | null },
) {
  return omitNullsAs<Static<typeof CallSchema>>({
    id: c.id,
    direction: c.direction,
    status: c.status,
    contact: related.contact,
    phoneNumber: related.phoneNumber,
    created: stamp(c.created_at, c.created_by),
    group: related.group,
    duration: c.duration,
    voicemail: c.voicemail,
    recording: c.recording,
    from: c.from_number,
    to: c.to_number,
    action: c.action,
    forwardedTo: c.forwarded_to,
    recordingUrl: c.recording_url,
    recordingDuration: c.recording_duration,
    transcription: c.transcription,
    ended: iso(c.ended_at),
  });
}

/** A call as the API shows it. */
export type Call = ReturnType<typeof presentCall>;

const distinct = (ids: (string | null)[]) => [...new Set(ids.filter((id): id is string => id !== null))];

/** Calls in the API shape with their contact, phone number and group loaded (one load per distinct id). */
export async function presentCalls(db: Queryable, accountId: string, rows: CallRow[]): Promise<Call[]> {
  const contactIds = distinct(rows.map((r) => r.contact_id));
  const numberIds = distinct(rows.map((r) => r.phone_number_id));
  const groupIds = distinct(rows.map((r) => r.group_id));
  const [contacts, numberRows, groupRows] = await Promise.all([
    findContacts(db, accountId, contactIds),
    Promise.all(numberIds.map((id) => getPhoneNumber(db, accountId, id))),
    Promise.all(groupIds.map((id) => getGroup(db, accountId, id))),
  ]);
  const numbers = await presentPhoneNumbers(
    db,
    accountId,
    numberRows.filter((n): n is PhoneNumberRow => n !== undefined),
  );
  const groups = await presentGroups(
    db,
    accountId,
    groupRows.filter((g): g is GroupRow => g !== undefined),
  );
  const contactById = new Map(contacts.map((c) => [c.id, presentContact(c)]));
  const numberById = new Map(numbers.map((n) => [n.id, n]));
  const groupById = new Map(groups.map((g) => [g.id, g]));
  return rows.map((r) =>
    presentCall(r, {
      contact: (r.contact_id && contactById.get(r.contact_id)) || null,
      phoneNumber: (r.phone_number_id && numberById.get(r.phone_number_id)) || null,
      group: (r.group_id && groupById.get(r.group_id)) || null,
    }),
  );
}
