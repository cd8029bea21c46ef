// The provider instances of a configuration, built-in and named (docs/routing.md, "Provider
// instances"): what the registry builds, what numbers may name, and which Twilio account signs a
// callback.
import type { Config, ProviderInstanceConfig, TwilioInstanceConfig } from '../config.ts';
import { BUILT_IN_PROVIDERS } from './names.ts';

type InstancesConfig = Pick<Config, 'twilio' | 'smpp' | 'providers'>;

/**
 * Every carrier instance this configuration sets up: `twilio` when TWILIO_ACCOUNT_SID is set,
 * `smpp` when SMPP_URL is set, then each of PROVIDERS. (The simulator is not one of them: it is
 * always there.)
 */
export function configuredInstances(config: InstancesConfig): ProviderInstanceConfig[] {
  const out: ProviderInstanceConfig[] = [];
  if (config.twilio.accountSid) {
    out.push({
      name: 'twilio',
      kind: 'twilio',
      baseUrl: config.twilio.baseUrl,
      accountSid: config.twilio.accountSid,
      authToken: config.twilio.authToken,
      timeoutMs: config.twilio.timeoutMs ?? 10_000,
    });
  }
  if (config.smpp.url) out.push({ name: 'smpp', kind: 'smpp', ...config.smpp });
  return [...out, ...(config.providers ?? [])];
}

/**
 * The Twilio-compatible account of an instance name: TWILIO_* for `twilio` (even unset: its empty
 * credentials then verify and authenticate nothing), a `twilio` instance of PROVIDERS, else undefined.
 */
export function twilioAccount(
  config: InstancesConfig,
  name: string,
): Pick<TwilioInstanceConfig, 'baseUrl' | 'accountSid' | 'authToken'> | undefined {
  if (name === 'twilio') return config.twilio;
  return (config.providers ?? []).find(
    (p): p is TwilioInstanceConfig => p.kind === 'twilio' && p.name === name,
  );
}

/** The names a phone number may be bound to here: the built-in ones and those of PROVIDERS. */
export function knownProviderNames(config: InstancesConfig): Set<string> {
  return new Set([...BUILT_IN_PROVIDERS, ...(config.providers ?? []).map((p) => p.name)]);
}

/** Twilio's status callback path on the public listener; an instance other than `twilio` is named in `?provider=`. */
export const TWILIO_STATUS_PATH = '/v1/providers/twilio/status';

/** The status callback URL a Twilio-compatible instance gives the carrier with each submission. */
export function twilioStatusCallback(externalsUrl: string, name: string): string {
  const url = `${externalsUrl}${TWILIO_STATUS_PATH}`;
  return name === 'twilio' ? url : `${url}?provider=${encodeURIComponent(name)}`;
}
