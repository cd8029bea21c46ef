import { fail } from '../../errors.ts';

/** A subscribe or change request, naming the destination as `url` (published) or `destination` (interface). */
export type DestinationInput = { url?: string; destination?: string };

/**
 * The destination a request names: `url` or `destination`, either accepted because the interface
 * and the published description disagree on the name. Both given and different is 400 HOOK-005.
 */
export function pickDestination(input: DestinationInput): string | undefined {
  const { url, destination } = input;
  if (url !== undefined && destination !== undefined && url !== destination) fail('HOOK-005');
  return url ?? destination;
}
