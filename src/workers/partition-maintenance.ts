import type { AppContext } from '../context.ts';
import { withTx } from '../db/client.ts';
import { maintainPartitions, type PartitionRound } from '../db/queries/partitions.ts';
import type { WorkerTask } from './index.ts';

/** One round of partition upkeep (months ahead created, months past retention dropped), logged. */
export async function runPartitionMaintenance(ctx: AppContext): Promise<PartitionRound> {
  const round = await withTx(ctx.db, (tx) => maintainPartitions(tx, ctx.config.partitions), { bulk: true });
  if (round.created.length) ctx.log(`partitions: created ${round.created.join(', ')}`);
  if (round.dropped.length) ctx.log(`partitions: dropped ${round.dropped.join(', ')} (past retention)`);
  if (round.kept.length)
    ctx.log(`partitions: kept ${round.kept.join(', ')} past retention: still holding work`);
  return round;
}

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
