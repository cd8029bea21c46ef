import type { AppContext } from '../../../context.ts';
import { withTx } from '../../../db/client.ts';
import { applyReceipts, type ReceiptInput } from '../../../db/queries/message-receipts.ts';
import type { StatusUpdate } from '../../../providers/types.ts';

const RANK: Record<StatusUpdate['status'], number> = { sent: 2, delivered: 3, undelivered: 3, failed: 3 };
const CHUNK = 5000;

/**
 * Applies delivery receipts, matched by the message they name or by (provider, provider message id), set-based. A status
 * never moves backwards, so late, repeated and out-of-order receipts are harmless; each change
 * emits `message-status` in the same statement. A receipt that arrives before its submission was
 * recorded is parked and applied by the dispatcher once it is. Answers how many messages changed.
 */
export async function applyStatusUpdates(
  ctx: Pick<AppContext, 'db' | 'metrics'>,
  updates: StatusUpdate[],
): Promise<number> {
  // One receipt per provider message id: the highest-ranked (the last of equals), as one UPDATE
  // cannot apply two rows to the same message.
  const best = new Map<string, StatusUpdate>();
  for (const u of updates) {
    const key = `${u.provider}\u0000${u.providerMessageId}`;
    const seen = best.get(key);
    if (!seen || RANK[u.status] >= RANK[seen.status]) best.set(key, u);
  }
  // A StatusUpdate is a ReceiptInput as it stands: no copy per receipt.
  const receipts: ReceiptInput[] = best.size === updates.length ? updates : [...best.values()];
  const { metrics } = ctx;
  if (metrics.enabled) {
    const now = Date.now();
    for (const u of updates) metrics.receipt(u.provider, u.status, (now - new Date(u.at).getTime()) / 1000);
  }
  let changed = 0;
  for (let i = 0; i < receipts.length; i += CHUNK) {
    const chunk = receipts.slice(i, i + CHUNK);
    changed += await withTx(ctx.db, (tx) => applyReceipts(tx, chunk), { indexLookups: true });
  }
  return changed;
}
