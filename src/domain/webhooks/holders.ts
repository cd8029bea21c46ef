import type { Actor } from '../actor.ts';

/** Why a subscription, credential or client was cut off: a person who held it left the account. */
export const CREATOR_REMOVED = 'creator-removed';

/**
 * The key an actor is recorded under among a webhook's holders: `user:<id>` for a console user, the
 * client's id for an API client; none for the CLI or the system (no one who can leave an account).
 */
export function holderKey(by: Actor): string | undefined {
  if (!by.id) return undefined;
  if (by.source === 'console') return `user:${by.id}`;
  if (by.source === 'api') return by.id;
  return undefined;
}
