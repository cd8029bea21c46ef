import type { AppContext } from '../../context.ts';
import { applyStatusUpdates } from '../../messaging/send/receipts/apply-status-updates.ts';
import type { ProviderSink } from '../../providers/types.ts';
import { receiveMessage } from '../inbound/receive-message.ts';

/**
 * Where providers deliver what they receive on their own: delivery receipts go to
 * applyStatusUpdates, inbound messages to receiveMessage. Throwing makes the provider retry.
 */
export function createProviderSink(ctx: AppContext): ProviderSink {
  return {
    statuses: async (updates) => {
      await applyStatusUpdates(ctx, updates);
    },
    inbound: async (message) => {
      await receiveMessage(ctx, message);
    },
  };
}
