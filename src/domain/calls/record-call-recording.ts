import type { Db } from '../../db/client.ts';
import { recordCallRecording as saveRecording } from '../../db/queries/calls.ts';
import { fail } from '../../errors.ts';
import { ourCalledNumber } from './our-number.ts';

/** A carrier's report that a call was recorded (and, later, transcribed). */
export interface CallRecording {
  provider: string;
  providerCallId: string;
  /** The called number (routes the report to its account). */
  to: string;
  url: string | null;
  duration: number | null;
  transcription?: string;
}

/**
 * Marks a call recorded; a call that was sent to voicemail becomes a voicemail. A repeated report
 * is harmless. Unknown called number → PROV-002; no such call → CALL-001.
 */
export async function recordCallRecording(db: Db, r: CallRecording): Promise<void> {
  const number = await ourCalledNumber(db, r.to, r.provider);
  const found = await saveRecording(db, number.account_id, r.provider, r.providerCallId, {
    url: r.url,
    duration: r.duration,
    transcription: r.transcription,
  });
  if (!found) fail('CALL-001');
}
