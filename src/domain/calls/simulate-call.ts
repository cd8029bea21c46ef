import type { Db } from '../../db/client.ts';
import type { CallStatus } from '../../db/queries/calls.ts';
import { fail } from '../../errors.ts';
import { parseMobile } from '../../messaging/phone.ts';
import { newId } from '../../util/ids.ts';
import { applyCallStatus } from './apply-call-status.ts';
import { getCall } from './get-call.ts';
import type { Call } from './present-call.ts';
import { receiveCall } from './receive-call.ts';
import { recordCallRecording } from './record-call-recording.ts';

/** A call the simulator places to one of our numbers. */
export interface SimulatedCall {
  from: string;
  to: string;
  /** How the call ends when it is not rejected (default `completed`). */
  outcome?: 'completed' | 'no-answer' | 'busy';
  /** Seconds the call lasts when completed (default 15). */
  duration?: number;
  /** The simulated carrier call id (default: a new one); a repeat is the same call. */
  id?: string;
}

/**
 * Plays a whole call through the same domain code a carrier's webhooks drive: receiveCall, then
 * the status reports ringing → in-progress → the outcome (a rejected call ends `busy`), and for a
 * completed call sent to voicemail, its recording. Answers the call as stored at the end.
 * Invalid `from` → CONT-001; `to` not an active number → PROV-002.
 */
export async function simulateCall(db: Db, sim: SimulatedCall): Promise<Call> {
  if (!parseMobile(sim.from)) fail('CONT-001', `Invalid caller number "${sim.from}".`);
  const providerCallId = sim.id ?? `SIMCA${newId().replaceAll('-', '')}`;
  const { call, plan } = await receiveCall(db, {
    provider: 'simulator',
    providerCallId,
    from: sim.from,
    to: sim.to,
  });
  const report = (status: CallStatus, duration?: number) =>
    applyCallStatus(db, { provider: 'simulator', providerCallId, to: call.to_number, status, duration });

  const outcome = sim.outcome ?? 'completed';
  if (plan.action === 'reject') {
    await report('busy', 0);
  } else if (outcome !== 'completed') {
    await report('ringing');
    await report(outcome, 0);
  } else {
    const duration = sim.duration ?? 15;
    await report('ringing');
    await report('in-progress');
    if (plan.action === 'voicemail') {
      // The simulator keeps no audio: the voicemail is recorded without a URL or transcription.
      await recordCallRecording(db, {
        provider: 'simulator',
        providerCallId,
        to: call.to_number,
        url: null,
        duration,
      });
    }
    await report('completed', duration);
  }
  return getCall(db, call.account_id, call.id);
}
