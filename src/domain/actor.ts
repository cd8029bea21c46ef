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

/** Formats a timestamp and actor as an audit stamp. */
export function stamp(at: Date | string, by: Actor | null | undefined) {
  return { at: new Date(at).toISOString(), by: by ?? {} };
}
