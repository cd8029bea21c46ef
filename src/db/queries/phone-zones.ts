/** Time zones of phone numbers by prefix (phone_prefix_zones, migration 0151). */

/**
 * SQL for a LATERAL subquery answering `zones` of the number in `numberSql` (E.164): the zones of
 * its longest prefix in phone_prefix_zones, no row when none matches. Written out per prefix
 * length so it runs inline in a set-based statement (a function call per recipient cost twice as much).
 */
export function numberZonesLateral(numberSql: string): string {
  const prefixes = Array.from({ length: 9 }, (_, i) => `left(substr(${numberSql}, 2), ${i + 1})`);
  return `(SELECT z.zones FROM phone_prefix_zones z
           WHERE z.prefix IN (${prefixes.join(', ')})
           ORDER BY length(z.prefix) DESC LIMIT 1)`;
}
