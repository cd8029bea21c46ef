import type { AppContext } from '../../context.ts';
import { withTx } from '../../db/client.ts';
import { maintainPartitions, type PartitionRound } from '../../db/queries/partitions.ts';

/** One round of partition upkeep (months ahead created, months past retention dropped), logged. */
export async function runPartitionMaintenance(ctx: AppContext): Promise<PartitionRound> {
  const round = await withTx(ctx.db, (tx) => maintainPartitions(tx, ctx.config.partitions), { bulk: true });
  if (round.created.length) ctx.log(`partitions: created ${round.created.join(', ')}`);
  if (round.dropped.length) ctx.log(`partitions: dropped ${round.dropped.join(', ')} (past retention)`);
  if (round.kept.length)
    ctx.log(`partitions: kept ${round.kept.join(', ')} past retention: still holding work`);
  return round;
}
