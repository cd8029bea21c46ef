import { runAutoTopups } from '../domain/billing/run-auto-topups.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 20;

/**
 * Auto top-up: every second, starts a top-up for accounts whose balance fell below their threshold
 * and charges due top-ups (at once again after a full batch). Starting is one set-based statement
 * under SKIP LOCKED; charging is claimed with a lease and keyed for idempotency at the provider.
 */
export const autoTopup: WorkerTask = {
  name: 'auto-topup',
  run: async (ctx) => ((await runAutoTopups(ctx, BATCH)) >= BATCH ? 0 : 1000),
};
