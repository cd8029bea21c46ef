/** How a column takes a field's value: as given, as JSON, or (on update) merged into the stored JSON object. */
export type ColumnKind = 'plain' | 'json' | 'merge';

/** A resource's writable fields → their column and how it takes the value. */
export type ColumnMap<F> = { [K in keyof F]?: readonly [string, ColumnKind] };

/**
 * The columns and parameter placeholders of the fields given (undefined = not given; null clears),
 * appending their values to params: for an INSERT's column list, or `col = val` pairs of an UPDATE
 * (`merge` columns then keep the keys not given).
 */
export function assignColumns<F extends object>(
  columns: ColumnMap<F>,
  f: F,
  params: unknown[],
  update = false,
): { cols: string[]; vals: string[] } {
  const cols: string[] = [];
  const vals: string[] = [];
  for (const [key, spec] of Object.entries(columns) as [keyof F, readonly [string, ColumnKind]][]) {
    const v = f[key];
    if (v === undefined) continue;
    const [col, kind] = spec;
    params.push(kind !== 'plain' && v !== null ? JSON.stringify(v) : v);
    cols.push(col);
    vals.push(update && kind === 'merge' ? `${col} || $${params.length}::jsonb` : `$${params.length}`);
  }
  return { cols, vals };
}
