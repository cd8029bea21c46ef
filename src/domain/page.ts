/** A page of results and what was applied to produce it (the HTTP layer adds `hasNext`). */
export interface Page<T> {
  items: T[];
  totalCount: number;
  offset: number;
  limit: number;
}
