/**
 * Default messages-per-second of a new number, by type: US 10DLC at a high brand trust score
 * (75 MPS), toll-free verified (150), short code (100), a plain mobile long code (10).
 */
export const DEFAULT_THROUGHPUT: Record<string, number> = {
  local: 75,
  tollfree: 150,
  shortcode: 100,
  mobile: 10,
};

export function defaultThroughput(type: string): number {
  return DEFAULT_THROUGHPUT[type] ?? 10;
}
