import type { Readable } from 'node:stream';
import type { Db } from '../../db/client.ts';
import type { ContactFilter, ContactRow } from '../../db/queries/contacts.ts';
import { contactAttributeNames, contactsAfter } from '../../db/queries/exports.ts';
import { fail } from '../../errors.ts';
import { MAX_ATTRIBUTES } from '../../schemas/limits.ts';
import { csvStream, keyset, takeExportSlot } from './csv.ts';

/** The contact columns of the export, before the custom fields (the import reads the same names). */
export const CONTACT_COLUMNS = [
  'id',
  'firstName',
  'lastName',
  'mobile',
  'country',
  'email',
  'tags',
  'optIn',
  'optOut',
  'blocked',
  'created',
] as const;

const iso = (d: Date | null) => (d ? d.toISOString() : '');

/**
 * The account's contacts that a filter matches (the list's: `q`, names, mobile, e-mail, tags), as
 * CSV, oldest first: the columns CONTACT_COLUMNS (tags joined with `;` as the import splits them),
 * then one column per custom field any of them has (sorted). Read in batches as the client takes
 * the text. At most EXPORTS_PER_ACCOUNT exports of the account at once (429 RATE-001).
 */
export async function exportContacts(
  db: Db,
  accountId: string,
  filter: ContactFilter,
): Promise<{ filename: string; stream: Readable }> {
  const release = takeExportSlot(accountId);
  if (!release) fail('RATE-001', 'Exports of this account are running; try again when one has ended.');
  try {
    // A custom field can be named like a contact column: it is exported under its own name
    // after them, so a name is a column once.
    const fields = (await contactAttributeNames(db, accountId, filter, MAX_ATTRIBUTES * 10)).filter(
      (f) => !(CONTACT_COLUMNS as readonly string[]).includes(f),
    );
    const rows = async function* () {
      for await (const c of keyset<ContactRow>(
        (after, limit) => contactsAfter(db, accountId, filter, after, limit),
        (c) => c.id,
      )) {
        yield [
          c.id,
          c.first_name,
          c.last_name,
          c.mobile_number,
          c.mobile_country,
          c.email,
          (c.tags ?? []).map((t) => t.tag).join(';'),
          iso(c.opt_in_at),
          iso(c.opted_out_at),
          iso(c.blocked_at),
          iso(c.created_at),
          ...fields.map((f) => c.attributes?.[f]),
        ];
      }
    };
    return {
      filename: `contacts-${new Date().toISOString().slice(0, 10)}.csv`,
      stream: csvStream([...CONTACT_COLUMNS, ...fields], rows(), release),
    };
  } catch (err) {
    release();
    throw err;
  }
}
