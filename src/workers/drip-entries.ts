import { enterDrips } from '../domain/drips/enter-drips.ts';
import type { WorkerTask } from './index.ts';

const BATCH = 200;

/**
 * Feeds drips from their entry queue (list joins, new contacts, replies, keywords, opt-outs, queued
 * by database triggers in the cause's transaction): checks every 250 ms, at once again after a
 * full batch. Rows are taken with SKIP LOCKED in the transaction that applies them.
 */
export const dripEntries: WorkerTask = {
  name: 'drip-entries',
  run: async (ctx) => ((await enterDrips(ctx.db, BATCH)) === BATCH ? 0 : 250),
};
