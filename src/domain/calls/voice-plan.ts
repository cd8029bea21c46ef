import type { PhoneNumberRow } from '../../db/queries/phone-numbers.ts';
import { parseMobile } from '../../messaging/phone.ts';

/** What a number does with an incoming call, from its `channels.voice` settings. */
export type VoicePlan =
  | { action: 'reject' }
  | { action: 'forward'; forwardTo: string }
  | { action: 'voicemail'; message: string; transcribe: boolean };

/** Said before the beep when the number has no `channels.voice.incoming.message`. */
export const DEFAULT_VOICEMAIL_GREETING = 'Please leave a message after the tone.';

interface VoiceChannel {
  active?: unknown;
  incoming?: { action?: unknown; forwardTo?: unknown; message?: unknown; transcribe?: unknown };
}

/**
 * Decides a call's fate from the number's `channels.voice`: voice inactive → reject; `incoming.action`
 * `forward` with a valid `forwardTo` → forward there; anything else → greet with `incoming.message`
 * and record a voicemail (transcribed when `incoming.transcribe`). An unusable forwardTo falls back
 * to voicemail rather than losing the caller.
 */
export function voicePlanFor(number: Pick<PhoneNumberRow, 'channels' | 'country'>): VoicePlan {
  const voice = (number.channels?.voice ?? {}) as VoiceChannel;
  if (voice.active !== true) return { action: 'reject' };
  const incoming = voice.incoming ?? {};
  if (incoming.action === 'forward' && typeof incoming.forwardTo === 'string') {
    const target = parseMobile(incoming.forwardTo, number.country);
    if (target) return { action: 'forward', forwardTo: target.number };
  }
  const message =
    typeof incoming.message === 'string' && incoming.message.trim() !== ''
      ? incoming.message
      : DEFAULT_VOICEMAIL_GREETING;
  return { action: 'voicemail', message, transcribe: incoming.transcribe === true };
}
