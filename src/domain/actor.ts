/** Who did something: the `by` of an audit stamp. */
export interface Actor {
  id?: string;
  name?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  source?: string;
  subSource?: string;
}

export const SYSTEM: Actor = { id: 'system', name: 'Sparrow', source: 'system' };

/** The seven fields of the interface's `by`, each a string: what is not known of the actor is empty. */
const ACTOR_FIELDS = ['id', 'name', 'firstName', 'lastName', 'email', 'source', 'subSource'] as const;

/**
 * Formats a timestamp and actor as an audit stamp. `by` always carries the interface's seven
 * fields as strings (a client reading `by.firstName` of an API client's stamp gets "", not
 * undefined); other keys a stored actor has are kept.
 */
export function stamp(at: Date | string, by: Actor | null | undefined) {
  const full: Record<string, string> = { ...(by as Record<string, string> | null | undefined) };
  for (const f of ACTOR_FIELDS) if (typeof full[f] !== 'string') full[f] = '';
  return { at: new Date(at).toISOString(), by: full as Required<Actor> };
}
