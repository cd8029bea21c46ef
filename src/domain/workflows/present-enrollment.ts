import type { Static } from '@sinclair/typebox';
import type { RunRow } from '../../db/queries/workflows-runs.ts';
import type { Enrollment as EnrollmentSchema } from '../../schemas/workflows.ts';
import { omitNullsAs } from '../../util/omit-nulls.ts';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/**
 * An enrollment (a run) as the API shows it: `status` is `active` (moving through nodes), `waiting`
 * (on a wait or a reply), `completed`, `stopped` (opt-out, workflow stopped) or `errored` (with
 * `error`); `currentNode` is the node it is at (or ended at). Unset fields are left out, never null.
 */
export function presentEnrollment(r: RunRow) {
  return omitNullsAs<Static<typeof EnrollmentSchema>>({
    id: r.id,
    workflowId: r.workflow_id,
    versionId: r.version_id,
    contact: { id: r.contact_id },
    status: r.status,
    currentNode: r.node_id,
    trigger: r.trigger,
    dueAt: r.status === 'active' || r.status === 'waiting' ? iso(r.due_at) : null,
    error: r.error,
    entered: iso(r.entered_at) as string,
    updated: iso(r.updated_at) as string,
    ended: iso(r.ended_at),
  });
}

/** An enrollment as the API shows it. */
export type Enrollment = ReturnType<typeof presentEnrollment>;
