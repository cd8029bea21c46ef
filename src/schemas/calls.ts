import { Type } from '@sinclair/typebox';
import { AuditStamp, IdParam, LiteralUnion, PageQuery } from './common.ts';
import { Contact } from './contacts.ts';
import { Group } from './groups.ts';
import { PhoneNumber } from './numbers.ts';

const STATUSES = [
  'initiated',
  'ringing',
  'in-progress',
  'completed',
  'busy',
  'no-answer',
  'failed',
  'canceled',
] as const;

export const CallStatus = LiteralUnion(STATUSES, {
  description:
    'Moves forward only: `initiated` → `ringing` → `in-progress` → `completed`, `busy`, `no-answer`, `failed` or `canceled`.',
});

export const CallDirection = Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]);

/** The interface's Call, plus the numbers, what was done with it and its recording. */
export const Call = Type.Object({
  id: Type.String(),
  direction: CallDirection,
  status: CallStatus,
  contact: Type.Optional(Contact),
  phoneNumber: Type.Optional(PhoneNumber),
  created: AuditStamp,
  group: Type.Optional(Group),
  duration: Type.Integer({ description: 'Seconds the call lasted (0 until it completes).' }),
  voicemail: Type.Boolean({ description: 'The caller left a voicemail.' }),
  recording: Type.Boolean({ description: 'The call was recorded.' }),
  from: Type.String({ description: 'The caller (E.164 when it is a valid number).' }),
  to: Type.String({ description: 'Our number that was called.' }),
  action: Type.Union([Type.Literal('forward'), Type.Literal('voicemail'), Type.Literal('reject')], {
    description: 'What the number did with the call (from its `channels.voice.incoming`).',
  }),
  forwardedTo: Type.Optional(Type.String()),
  recordingUrl: Type.Optional(Type.String()),
  recordingDuration: Type.Optional(Type.Integer()),
  transcription: Type.Optional(Type.String()),
  ended: Type.Optional(Type.String({ format: 'date-time' })),
});

export const CallListQuery = Type.Object({
  ...PageQuery,
  direction: Type.Optional(CallDirection),
  status: Type.Optional(CallStatus),
  contactId: Type.Optional(Type.String({ format: 'uuid', description: 'Only calls from this contact.' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Created before.' })),
});

export const CallParams = IdParam('accountId', 'callId');

/** The body of the simulator's call door. */
export const SimulatedCallBody = Type.Object({
  from: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The caller (a valid number, E.164 preferred).',
  }),
  to: Type.String({ minLength: 1, maxLength: 64, description: 'One of an account’s numbers (E.164).' }),
  outcome: Type.Optional(
    Type.Union([Type.Literal('completed'), Type.Literal('no-answer'), Type.Literal('busy')], {
      description: 'How the call ends unless the number rejects it (default `completed`).',
    }),
  ),
  duration: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 86_400, description: 'Seconds, when completed (default 15).' }),
  ),
  id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description: 'The carrier’s call id; a second call with the same id is the same call (default: new).',
    }),
  ),
});
