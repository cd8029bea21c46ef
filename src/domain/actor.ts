import { ACTOR_FIELDS } from '../schemas/enums.ts';

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

/**
 * Formats a timestamp and actor as an audit stamp. `by` always carries the interface's seven
 * fields as strings (a client reading `by.firstName` of an API client's stamp gets "", not
 * undefined); other keys a stored actor has are kept.
 */
export function stamp(at: Date | string, by: Actor | null | undefined) {
  // (Its SQL twin: actorSql in db/queries/contacts-merge.ts, for contacts written set-based.)
  const full: Record<string, string> = { ...(by as Record<string, string> | null | undefined) };
  for (const f of ACTOR_FIELDS) if (typeof full[f] !== 'string') full[f] = '';
  return { at: new Date(at).toISOString(), by: full as Required<Actor> };
}
