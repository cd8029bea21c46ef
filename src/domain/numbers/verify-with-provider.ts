import type { Config } from '../../config.ts';
import { twilioHoldsNumber } from '../../providers/twilio/incoming-numbers.ts';

/** Asks a number's provider whether the number is ours to send from. */
export type NumberVerifier = (provider: string, number: string) => Promise<boolean>;

/**
 * The verifier of this configuration: a `twilio` number must be listed by the configured Twilio
 * account's IncomingPhoneNumbers (false when Twilio is not configured or does not answer); the
 * simulator's numbers come from its own inventory and SMPP has no such query, so they pass.
 */
export function providerVerifier(twilio: Config['twilio']): NumberVerifier {
  return async (provider, number) => (provider === 'twilio' ? twilioHoldsNumber(twilio, number) : true);
}
