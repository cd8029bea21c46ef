import { Type } from '@sinclair/typebox';
import { PROVIDER_NAME_PATTERN } from '../providers/names.ts';

/** Form-encoded Twilio callback parameters (every value a string). */
export const TwilioParams = Type.Record(Type.String(), Type.String());

/** Which Twilio-compatible instance a callback is for: absent, the built-in `twilio`. */
export const TwilioInstance = Type.Object({
  provider: Type.Optional(
    Type.String({
      pattern: PROVIDER_NAME_PATTERN,
      description:
        'The Twilio instance of PROVIDERS the callback is for (its status callbacks carry it; give it in the ' +
        'webhook URLs configured at that account). Absent: `twilio` (TWILIO_*). The signature is checked ' +
        'with that instance’s auth token.',
    }),
  ),
});
