import type { Role } from '../../db/queries/users.ts';
import { SCOPES, type Scope } from '../../schemas/scopes.ts';

export type { Role };

/** What a role may not do: manage credentials, billing and users (Member), or change anything (Viewer). */
const MEMBER_EXCLUDED = new Set<Scope>(['billing:write', 'users:write', 'clients:read', 'clients:write']);

/**
 * The scopes a console user's access token carries for a role. Administrator: everything. Member:
 * sends, reads and manages the messaging areas, but not API credentials, billing or users. Viewer:
 * reads only (no credentials).
 */
export function scopesFor(role: Role): Scope[] {
  if (role === 'Administrator') return [...SCOPES];
  if (role === 'Member') return SCOPES.filter((s) => !MEMBER_EXCLUDED.has(s));
  return SCOPES.filter((s) => s.endsWith(':read') && s !== 'clients:read');
}
