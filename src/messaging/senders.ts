/**
 * Which of a group's numbers may send to a destination (docs/routing.md). The bulk insert hands the
 * answer to sparrow_pick_sender (migration 0351), which picks one per recipient by a stable hash.
 */

/** A number of the sending pool: its country and the destination countries it can also send to. */
export interface SenderChoice {
  id: string;
  country?: string;
  destinations?: string[];
}

/**
 * For each destination country, the pool's numbers suitable for it (of that country, or listing it
 * among their destinations) in pool order; undefined when the choice would be the whole pool for
 * every country (one number, or every number suitable for the same countries).
 */
export function suitableSenders(pool: SenderChoice[]): Record<string, string[]> | undefined {
  if (pool.length < 2) return undefined;
  const byCountry: Record<string, string[]> = {};
  for (const p of pool) {
    for (const c of new Set([p.country, ...(p.destinations ?? [])])) {
      if (!c) continue;
      const key = c.toUpperCase();
      if (!byCountry[key]) byCountry[key] = [];
      byCountry[key].push(p.id);
    }
  }
  const lists = Object.values(byCountry);
  if (lists.length === 0 || lists.every((ids) => ids.length === pool.length)) return undefined;
  return byCountry;
}
