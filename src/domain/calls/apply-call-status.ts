import type { Db } from '../../db/client.ts';
import { advanceCallStatus, type CallRow, type CallStatus } from '../../db/queries/calls.ts';
import { ourCalledNumber } from './our-number.ts';

/** A carrier's report on a call's progress. */
export interface CallStatusUpdate {
  provider: string;
  providerCallId: string;
  /** The called number (routes the report to its account). */
  to: string;
  status: CallStatus;
  /** Seconds the call lasted, when the report carries it (on completion). */
  duration?: number;
}

/**
 * Moves a call forward: initiated → ringing → in-progress → completed | busy | no-answer | failed |
 * canceled. Reports arrive late, twice or out of order: one that would move the call backwards,
 * or past its terminal status, changes nothing. Answers the call when it moved.
 * Unknown called number → PROV-002.
 */
export async function applyCallStatus(db: Db, u: CallStatusUpdate): Promise<CallRow | undefined> {
  const number = await ourCalledNumber(db, u.to, u.provider);
  return advanceCallStatus(db, number.account_id, u.provider, u.providerCallId, u.status, u.duration);
}
