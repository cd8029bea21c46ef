import type { Config, ProviderInstanceConfig } from '../../config.ts';
import { fail } from '../../errors.ts';
import { knownProviderNames } from '../../providers/instances.ts';
import { twilioHoldsNumber } from '../../providers/twilio/incoming-numbers.ts';

/** Asks a number's provider whether the number is ours to send from. */
export type NumberVerifier = (provider: string, number: string) => Promise<boolean>;

/**
 * The verifier of this configuration: a number of a Twilio-compatible instance (`twilio`, or a
 * `twilio` instance of PROVIDERS) must be listed by that account's IncomingPhoneNumbers (false when
 * it is not configured or does not answer); the simulator's numbers come from its own inventory and
 * SMPP has no such query, so they pass. A provider this process does not know cannot vouch for a
 * number: false.
 */
export function providerVerifier(
  twilio: Config['twilio'],
  instances: readonly ProviderInstanceConfig[] = [],
): NumberVerifier {
  const kinds = new Map<string, ProviderInstanceConfig | 'any'>([
    ['simulator', 'any'],
    ['smpp', 'any'],
  ]);
  for (const i of instances) kinds.set(i.name, i.kind === 'smpp' ? 'any' : i);
  return async (provider, number) => {
    if (provider === 'twilio') return twilioHoldsNumber(twilio, number);
    const instance = kinds.get(provider);
    if (instance === undefined) return false;
    return instance === 'any' || instance.kind !== 'twilio' ? true : twilioHoldsNumber(instance, number);
  };
}

/**
 * A phone number's provider must be one this process knows (the built-in `simulator`, `twilio`,
 * `smpp`, or an instance of PROVIDERS): its kind decides how the number is verified. Else 400 VAL-001.
 */
export function checkNumberProvider(
  config: Pick<Config, 'twilio' | 'smpp' | 'providers'>,
  name: string,
): void {
  const known = knownProviderNames(config);
  if (!known.has(name)) {
    fail(
      'VAL-001',
      `provider: "${name}" is not a provider of this service; one of ${[...known].join(', ')}.`,
    );
  }
}
