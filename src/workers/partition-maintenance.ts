import { runPartitionMaintenance } from '../domain/housekeeping/maintain-partitions.ts';
import type { WorkerTask } from './index.ts';

/**
 * Keeps the month partitions of messages, events and webhook deliveries (docs/scaling.md): at
 * start and then hourly; one worker process does each round (advisory lock).
 */
export const partitionMaintenance: WorkerTask = {
  name: 'partition-maintenance',
  run: async (ctx) => {
    await runPartitionMaintenance(ctx);
    return 60 * 60_000;
  },
};
