import type { VoicePlan } from './voice-plan.ts';

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>';

/** Escapes text for an XML element or a double-quoted attribute. */
function xml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`,
  );
}

/**
 * The TwiML answering an incoming call: `<Dial>` to the forward target, `<Say>` + `<Record>` for a
 * voicemail (the recording, and its transcription when asked for, are posted to `recordingUrl`),
 * or `<Reject reason="busy"/>` (the caller hears busy).
 */
export function voiceTwiml(plan: VoicePlan, recordingUrl: string): string {
  switch (plan.action) {
    case 'reject':
      return `${HEAD}<Response><Reject reason="busy"/></Response>`;
    case 'forward':
      return `${HEAD}<Response><Dial>${xml(plan.forwardTo)}</Dial></Response>`;
    case 'voicemail': {
      const transcribe = plan.transcribe
        ? ` transcribe="true" transcribeCallback="${xml(recordingUrl)}"`
        : ' transcribe="false"';
      return (
        `${HEAD}<Response><Say>${xml(plan.message)}</Say>` +
        `<Record action="${xml(recordingUrl)}" method="POST" maxLength="120" playBeep="true"${transcribe}/>` +
        '</Response>'
      );
    }
  }
}

/** The TwiML that ends a call once its voicemail is recorded. */
export const HANGUP_TWIML = `${HEAD}<Response><Hangup/></Response>`;
