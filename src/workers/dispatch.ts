import { dispatchRound } from '../domain/send/dispatch/dispatch-batch.ts';
import type { WorkerTask } from './index.ts';

/** The dispatcher: each round hands due messages to their providers (domain/send/dispatch). */
export const dispatch: WorkerTask = {
  name: 'dispatch',
  run: (ctx, signal) => dispatchRound(ctx, signal),
};
