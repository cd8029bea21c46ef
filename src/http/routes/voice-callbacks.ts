import { Type } from '@sinclair/typebox';
import type { CallStatus } from '../../db/queries/calls.ts';
import { applyCallStatus } from '../../domain/calls/apply-call-status.ts';
import { receiveCall } from '../../domain/calls/receive-call.ts';
import { recordCallRecording } from '../../domain/calls/record-call-recording.ts';
import { simulateCall } from '../../domain/calls/simulate-call.ts';
import { HANGUP_TWIML, voiceTwiml } from '../../domain/calls/twiml.ts';
import { fail } from '../../errors.ts';
import { Call, SimulatedCallBody } from '../../schemas/calls.ts';
import { Envelope, errorResponses } from '../../schemas/common.ts';
import { TwilioInstance, TwilioParams } from '../../schemas/twilio-callbacks.ts';
import { noContent, ok } from '../respond.ts';
import { signedTwilioInstance } from '../twilio-signature.ts';
import type { App } from '../types.ts';

type Params = Record<string, string>;
const TwiML = { description: 'TwiML.', content: { 'text/xml': { schema: Type.String() } } };
const tags = ['providers'];

// Twilio's call statuses; `queued` (outbound calls only) is our `initiated`.
const STATUS: Record<string, CallStatus> = {
  queued: 'initiated',
  initiated: 'initiated',
  ringing: 'ringing',
  'in-progress': 'in-progress',
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
};

/** A non-negative whole number of seconds from a callback parameter, if it is one. */
function seconds(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d{1,9}$/.test(raw)) return undefined;
  return Number(raw);
}

/** The call parameters every voice callback carries; 400 when one is missing. */
function callOf(p: Params): { sid: string; from: string; to: string } {
  const sid = p.CallSid;
  if (!sid || !p.To || sid.length > 128 || p.To.length > 64)
    fail('VAL-001', 'Not a Twilio voice callback: CallSid and To are required.');
  return { sid, from: (p.From ?? '').slice(0, 64), to: p.To };
}

/**
 * Voice on the public listener: Twilio's voice webhooks (authenticated by X-Twilio-Signature, like
 * the SMS callbacks), for the built-in `twilio` or, with `?provider=NAME`, a Twilio instance of
 * PROVIDERS: its auth token checks the signature and the call is taken for the numbers it serves.
 * The simulator's call door is simulatorCallRoutes.
 */
export async function voiceCallbackRoutes(app: App) {
  /** The `<Record>` action of a call taken by `instance`: it names the instance again. */
  const recordingUrl = (instance: string) =>
    `${app.ctx.config.externalsUrl}/v1/providers/twilio/voice/recording` +
    (instance === 'twilio' ? '' : `?provider=${encodeURIComponent(instance)}`);

  app.post(
    '/v1/providers/twilio/voice',
    {
      schema: {
        tags,
        summary: 'Twilio incoming-call webhook',
        description:
          'Stores the call (`initiated`; the caller becomes a contact when new) and answers TwiML from the number’s ' +
          '`channels.voice.incoming`: `action: forward` → `<Dial>` to `forwardTo`; otherwise `<Say>` the `message` and ' +
          '`<Record>` a voicemail (`transcribe` honoured); voice inactive → `<Reject>`. A retried CallSid is the same ' +
          'call. `?provider=NAME`: a Twilio instance of PROVIDERS, for the numbers it serves. Bad signature → 403 ' +
          'PROV-001; a number unknown or not served by the instance → 404 PROV-002.',
        querystring: TwilioInstance,
        body: TwilioParams,
        response: { 200: TwiML, ...errorResponses() },
      },
    },
    async (req, reply) => {
      const instance = signedTwilioInstance(app, req);
      const c = callOf(req.body);
      if (!c.from) fail('VAL-001', 'Not a Twilio voice callback: From is required.');
      const { plan } = await receiveCall(app.ctx.db, {
        provider: instance,
        providerCallId: c.sid,
        from: c.from,
        to: c.to,
      });
      return reply
        .code(200)
        .type('text/xml')
        .send(voiceTwiml(plan, recordingUrl(instance)));
    },
  );

  app.post(
    '/v1/providers/twilio/voice/status',
    {
      schema: {
        tags,
        summary: 'Twilio call status callback',
        description:
          'Moves the call forward (`initiated → ringing → in-progress → completed | busy | no-answer | failed | ' +
          'canceled`; never backwards, a repeat is harmless) and records `CallDuration`. Answers 204; a bad ' +
          'signature → 403 PROV-001. `?provider=NAME`: the calls of that Twilio instance.',
        querystring: TwilioInstance,
        body: TwilioParams,
        response: { 204: { description: 'Applied.', type: 'null' }, ...errorResponses() },
      },
    },
    async (req, reply) => {
      const instance = signedTwilioInstance(app, req);
      const c = callOf(req.body);
      const status = STATUS[(req.body.CallStatus ?? '').toLowerCase()];
      if (status) {
        await applyCallStatus(app.ctx.db, {
          provider: instance,
          providerCallId: c.sid,
          to: c.to,
          status,
          duration: seconds(req.body.CallDuration),
        });
      }
      return noContent(reply);
    },
  );

  app.post(
    '/v1/providers/twilio/voice/recording',
    {
      schema: {
        tags,
        summary: 'Twilio recording and transcription callback',
        description:
          'The `<Record>` action (and transcribeCallback): marks the call recorded — a voicemail when the call was ' +
          'sent to voicemail — with `RecordingUrl`, `RecordingDuration` and `TranscriptionText`. Answers TwiML that ' +
          'hangs up. `?provider=NAME`: a call of that Twilio instance (the action URL of its TwiML names it). Bad ' +
          'signature → 403 PROV-001; unknown call → 404 CALL-001.',
        querystring: TwilioInstance,
        body: TwilioParams,
        response: { 200: TwiML, ...errorResponses() },
      },
    },
    async (req, reply) => {
      const instance = signedTwilioInstance(app, req);
      const c = callOf(req.body);
      const url = req.body.RecordingUrl;
      await recordCallRecording(app.ctx.db, {
        provider: instance,
        providerCallId: c.sid,
        to: c.to,
        url: url && /^https?:\/\//i.test(url) ? url.slice(0, 2048) : null,
        duration: seconds(req.body.RecordingDuration) ?? null,
        transcription: req.body.TranscriptionText?.slice(0, 10_000),
      });
      return reply.code(200).type('text/xml').send(HANGUP_TWIML);
    },
  );
}

/**
 * The simulator's call door on the public listener, for tests and demos: mounted only while
 * SIMULATOR_ENDPOINTS is on (the development default), behind SIMULATOR_SECRET when one is set.
 */
export async function simulatorCallRoutes(app: App) {
  app.post(
    '/v1/providers/simulator/calls',
    {
      schema: {
        tags,
        summary: 'Simulate an incoming call',
        description:
          'Plays a call to one of our numbers through the same code as the carrier webhooks: the caller becomes (or ' +
          'is found as) a contact, the number’s voice settings decide forward / voicemail / reject, and the call moves ' +
          'through ringing and in-progress to `outcome` (a rejected call ends `busy`; a completed voicemail call is ' +
          'recorded). Answers the Call. Invalid `from` → 400 CONT-001; `to` not an active number → 404 PROV-002.',
        body: SimulatedCallBody,
        response: { 200: Envelope(Call), ...errorResponses() },
      },
    },
    async (req) => ok(await simulateCall(app.ctx.db, req.body)),
  );
}
