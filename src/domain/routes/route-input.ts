import type { RouteFields } from '../../db/queries/routes.ts';
import { fail } from '../../errors.ts';
import { isProviderName } from '../../providers/names.ts';

/** A route as the API and the CLI give it. */
export interface RouteInput {
  prefix?: string;
  country?: string;
  providers: { provider: string; priority?: number; weight?: number }[];
  description?: string;
}

/**
 * Checks and normalises a route (ROUTE-003 naming the problem): a prefix of E.164 digits (a
 * leading + dropped) or a two-letter country (upper-cased), not both; well-formed provider instance
 * names (providers/names.ts), each once, priority 1..100 (default 1), weight 0..10000 (default 1).
 * A name need not be configured in this process: the dispatcher passes over one it does not have
 * (docs/routing.md), so a route can be written before its carrier is set up, or in a process that
 * does not run it.
 */
export function routeFields(input: RouteInput): RouteFields {
  const prefix = input.prefix === undefined ? null : input.prefix.replace(/^\+/, '');
  const country = input.country === undefined ? null : input.country.toUpperCase();
  if (prefix !== null && !/^[0-9]{1,15}$/.test(prefix))
    fail('ROUTE-003', 'prefix: give 1 to 15 E.164 digits.');
  if (country !== null && !/^[A-Z]{2}$/.test(country))
    fail('ROUTE-003', 'country: give an ISO 3166-1 alpha-2 code.');
  if (prefix !== null && country !== null) fail('ROUTE-003', 'Give a prefix or a country, not both.');
  if (!Array.isArray(input.providers) || input.providers.length === 0 || input.providers.length > 10) {
    fail('ROUTE-003', 'providers: give 1 to 10 providers.');
  }
  const seen = new Set<string>();
  const providers = input.providers.map((p) => {
    if (!isProviderName(p.provider)) {
      fail(
        'ROUTE-003',
        'providers: a provider is an instance name, 1 to 32 lowercase letters, digits, - or _ (e.g. smpp, twilio, carrier-b).',
      );
    }
    if (seen.has(p.provider)) fail('ROUTE-003', `providers: ${p.provider} is named twice.`);
    seen.add(p.provider);
    const priority = p.priority ?? 1;
    const weight = p.weight ?? 1;
    if (!Number.isInteger(priority) || priority < 1 || priority > 100) {
      fail('ROUTE-003', 'providers: priority is an integer 1..100.');
    }
    if (!Number.isInteger(weight) || weight < 0 || weight > 10_000) {
      fail('ROUTE-003', 'providers: weight is an integer 0..10000.');
    }
    return { provider: p.provider, priority, weight };
  });
  if (input.description !== undefined && input.description.length > 200) {
    fail('ROUTE-003', 'description: at most 200 characters.');
  }
  return { prefix, country, providers, description: input.description ?? null };
}
