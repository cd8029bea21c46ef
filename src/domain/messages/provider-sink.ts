import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { InboundRefused, type ProviderSink } from '../../providers/types.ts';
import { receiveMessage } from '../inbound/receive-message.ts';
import { applyStatusUpdates } from '../send/receipts/apply-status-updates.ts';

/**
 * Where providers deliver what they receive on their own: delivery receipts go to
 * applyStatusUpdates, inbound messages to receiveMessage. Throwing makes the provider retry, but
 * for an inbound message no retry can ever place (PROV-002 not our number on this provider,
 * CONT-001 a sender that is not a number): that is an InboundRefused.
 */
export function createProviderSink(ctx: AppContext): ProviderSink {
  return {
    statuses: async (updates) => {
      await applyStatusUpdates(ctx, updates);
    },
    inbound: async (message) => {
      try {
        await receiveMessage(ctx, message);
      } catch (err) {
        if (err instanceof AppError && err.code === 'PROV-002')
          throw new InboundRefused('destination', err.message);
        if (err instanceof AppError && err.code === 'CONT-001')
          throw new InboundRefused('source', err.message);
        throw err;
      }
    },
  };
}
