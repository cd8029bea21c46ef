import type { Static } from '@sinclair/typebox';
import type { ContactImportRow } from '../../db/queries/contact-imports.ts';
import type { ContactImport as ContactImportSchema } from '../../schemas/contact-imports.ts';
import { omitNullsAs } from '../../util/omit-nulls.ts';
import { type Actor, SYSTEM, stamp } from '../actor.ts';

/** A contact import as the API answers it. */
export type ContactImport = Static<typeof ContactImportSchema>;

/** The ContactImport shape of a contact_imports row; unset fields are left out. */
export function presentContactImport(r: ContactImportRow): ContactImport {
  return omitNullsAs<ContactImport>({
    id: r.id,
    status: r.status,
    fileName: r.file_name,
    mergeStrategy: r.merge_strategy,
    consent: r.consent,
    counts: {
      total: r.total,
      processed: r.processed,
      created: r.created,
      updated: r.updated,
      failed: r.failed,
    },
    errors: r.row_errors,
    error: r.error,
    created: stamp(r.created_at, r.created_by as Actor),
    // Progress is the system's doing; the request's author is in `created`.
    updated: stamp(r.updated_at, r.processed > 0 || r.error ? SYSTEM : (r.created_by as Actor)),
    startedAt: r.started_at?.toISOString() ?? null,
    finishedAt: r.finished_at?.toISOString() ?? null,
  });
}
