import type { Config, ProviderInstanceConfig } from '../../config.ts';
import { fail } from '../../errors.ts';
import { knownProviderNames } from '../../providers/instances.ts';
import { twilioHoldsNumber } from '../../providers/twilio/incoming-numbers.ts';

/**
 * Asks whether a number is the account's to send from through a provider: the provider itself
 * where it can be asked, the operator's assignment where it cannot.
 */
export interface NumberVerifier {
  (provider: string, number: string, accountId?: string): Promise<boolean>;
  /**
   * Whether numbers on this provider are the operator's to assign (`sparrow numbers assign`):
   * every real carrier that cannot be asked (SMPP). An account is refused such a number (NUM-011)
   * unless the operator assigned it to that account there.
   */
  assigned?: (provider: string) => boolean;
}

/** Whether the operator assigned a number on a provider to an account (number_assignments). */
export type AssignmentLookup = (provider: string, number: string, accountId: string) => Promise<boolean>;

/**
 * The names of the providers that are asked about a number instead of assigned by the operator:
 * the simulator (its own inventory) and every Twilio-compatible instance (IncomingPhoneNumbers).
 */
export function askedProviders(instances: readonly ProviderInstanceConfig[] = []): string[] {
  return ['simulator', 'twilio', ...instances.filter((i) => i.kind === 'twilio').map((i) => i.name)];
}

/**
 * The verifier of this configuration: a number of a Twilio-compatible instance (`twilio`, or a
 * `twilio` instance of PROVIDERS) must be listed by that account's IncomingPhoneNumbers (false when
 * it is not configured or does not answer); the simulator's numbers come from its own inventory.
 * SMPP has no such query: a number on an SMPP instance (`smpp` or one of PROVIDERS) is the
 * account's only when the operator assigned it to that account there (`assigned`; without a
 * lookup or an account, false). A provider this process does not know cannot vouch for a number: false.
 */
export function providerVerifier(
  twilio: Config['twilio'],
  instances: readonly ProviderInstanceConfig[] = [],
  isAssigned?: AssignmentLookup,
): NumberVerifier {
  const kinds = new Map<string, ProviderInstanceConfig | 'inventory' | 'assigned'>([
    ['simulator', 'inventory'],
    ['smpp', 'assigned'],
  ]);
  for (const i of instances) kinds.set(i.name, i.kind === 'smpp' ? 'assigned' : i);
  const verify: NumberVerifier = async (provider, number, accountId) => {
    if (provider === 'twilio') return twilioHoldsNumber(twilio, number);
    const instance = kinds.get(provider);
    if (instance === undefined) return false;
    if (instance === 'inventory') return true;
    if (instance === 'assigned')
      return accountId !== undefined && !!(await isAssigned?.(provider, number, accountId));
    return instance.kind === 'twilio' ? twilioHoldsNumber(instance, number) : false;
  };
  verify.assigned = (provider) => kinds.get(provider) === 'assigned';
  return verify;
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
