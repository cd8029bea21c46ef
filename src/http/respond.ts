/** A page of results and what was applied to produce it. */
export interface Page<T> {
  items: T[];
  totalCount: number;
  offset: number;
  limit: number;
}

/** `{success: true, data}` */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** `{success: true, data: [...], pagination}` */
export function page<T, U>(p: Page<T>, map: (item: T) => U) {
  return {
    success: true as const,
    data: p.items.map(map),
    pagination: {
      limit: p.limit,
      offset: p.offset,
      hasNext: p.offset + p.items.length < p.totalCount,
      totalCount: p.totalCount,
    },
  };
}
