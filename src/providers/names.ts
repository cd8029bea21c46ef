// Provider instances are named (docs/routing.md, "Provider instances"): the names routes, phone
// numbers, messages and receipts carry. One rule for what a name looks like, for every caller.

/** The kinds of provider adapter: what an instance speaks. */
export const PROVIDER_KINDS = ['simulator', 'twilio', 'smpp'] as const;

/** A kind of provider adapter (PROVIDER_KINDS). */
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/**
 * The built-in instances: `simulator` always, `twilio` from TWILIO_*, `smpp` from SMPP_*. Each is
 * named after its kind; PROVIDERS may not reuse these names.
 */
export const BUILT_IN_PROVIDERS: readonly ProviderKind[] = ['simulator', 'twilio', 'smpp'];

/** A provider instance's name: 1 to 32 lowercase letters, digits, `-` or `_`, starting with a letter or digit. */
export const PROVIDER_NAME_PATTERN = '^[a-z0-9][a-z0-9_-]{0,31}$';
const NAME = new RegExp(PROVIDER_NAME_PATTERN);

/** Whether a string is a well-formed provider instance name (configured or not). */
export function isProviderName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name);
}
