import type { Queryable } from '../../db/client.ts';
import { findContactWithMemberships } from '../../db/queries/contacts.ts';
import { type ExecutionFilter, type ExecutionRow, executionAt } from '../../db/queries/drips.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { omitNulls } from '../../util/omit-nulls.ts';
import { presentContact } from '../contacts/present-contact.ts';
import { requireDrip } from './get-drip.ts';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** The Drip execution shape (plus when it ended, when its next step is due, and its failure; unset ones left out). */
export function presentExecution(e: ExecutionRow, contact: ReturnType<typeof presentContact>) {
  return omitNulls({
    id: e.id,
    status: e.status,
    entered: new Date(e.entered_at).toISOString(),
    ended: iso(e.ended_at),
    due: iso(e.due_at),
    stepsSent: e.steps_sent,
    error: e.error,
    contact,
  });
}

/** A drip execution as the API shows it. */
export type Execution = ReturnType<typeof presentExecution>;

/**
 * Endpoint 17: the ONE execution at `offset` among the drip's executions (newest first, optionally
 * of one contact, one status and/or one version of the drip's workflow), with the pagination of
 * that one-item page. A `versionId` that is not an id is ignored (as before drips ran on
 * workflows). Errors: DRIP-001 unknown drip, DRIP-002 no execution at that offset.
 */
export async function getExecution(
  db: Queryable,
  accountId: string,
  dripId: string,
  query: ExecutionFilter & { offset: number },
): Promise<{
  execution: Execution;
  pagination: { limit: 1; offset: number; hasNext: boolean; totalCount: number };
}> {
  const drip = await requireDrip(db, accountId, dripId);
  if (query.contactId !== undefined && !isId(query.contactId)) fail('DRIP-002');
  const versionId = query.versionId !== undefined && isId(query.versionId) ? query.versionId : undefined;
  const { row, total } = await executionAt(db, accountId, drip.id, { ...query, versionId }, query.offset);
  if (!row) fail('DRIP-002');
  const contact = await findContactWithMemberships(db, accountId, row.contact_id);
  if (!contact) fail('DRIP-002');
  return {
    execution: presentExecution(row, presentContact(contact, contact.memberships)),
    pagination: { limit: 1, offset: query.offset, hasNext: query.offset + 1 < total, totalCount: total },
  };
}
