import type { AppContext } from '../context.ts';
import { createProviderSink } from '../domain/messages/provider-sink.ts';
import { autoTopup } from './auto-topup.ts';
import { bulkContacts } from './bulk-contacts.ts';
import { campaignScheduler } from './campaign-scheduler.ts';
import { contactImports } from './contact-imports.ts';
import { dispatch } from './dispatch.ts';
import { idempotencyPurge } from './idempotency-purge.ts';
import { type Loop, startLoop } from './loop.ts';
import { meetingReminders } from './meeting-reminders.ts';
import { messageExpiry } from './message-expiry.ts';
import { partitionMaintenance } from './partition-maintenance.ts';
import { scheduledSends } from './scheduled-sends.ts';
import { sharefilePurge } from './sharefile-purge.ts';
import { smppOutboxExpiry } from './smpp-outbox-expiry.ts';
import { webhookDelivery } from './webhook-delivery.ts';
import { webhookFanOut } from './webhook-fanout.ts';
import { workflowEnroll } from './workflow-enroll.ts';
import { workflowRunner } from './workflow-runner.ts';

/**
 * A background task: a name and a loop body that answers how long to wait before its next run.
 * A round does one bounded piece of work (typically one claim of its queue through the claim
 * helper, `src/domain/claim.ts`) and returns; it never loops until stopped.
 */
export interface WorkerTask {
  name: string;
  /** Runs one round; answers the delay in ms before the next round. Throwing logs and retries. */
  run: (ctx: AppContext, signal: AbortSignal) => Promise<number>;
  /** Hands the loop a wake-up (new work is known to exist: the next round starts at once); answers its undoing. */
  subscribe?: (wake: () => void) => () => void;
  /** Runs once after the last round when the worker stops (hand back claims, finish work in flight). */
  stop?: (ctx: AppContext) => Promise<void>;
}

/** Every task the worker role runs. */
export const TASKS: WorkerTask[] = [
  dispatch,
  idempotencyPurge,
  webhookFanOut(),
  webhookDelivery(),
  campaignScheduler,
  autoTopup,
  workflowEnroll,
  workflowRunner,
  meetingReminders,
  scheduledSends,
  sharefilePurge,
  bulkContacts,
  contactImports,
  smppOutboxExpiry,
  messageExpiry,
  partitionMaintenance,
];

/**
 * Starts the worker role; `stop` lets every running round finish, then returns. Failures are
 * logged through `log` (the process's logger, ctx.log, unless another is given).
 */
export function startWorkers(
  ctx: AppContext,
  tasks: WorkerTask[] = TASKS,
  log: (msg: string) => void = ctx.log,
) {
  // Providers deliver receipts and inbound messages to the sink from here on (the worker role owns them).
  ctx.providers
    .start(createProviderSink(ctx))
    .catch((err) => log(`providers: start failed: ${(err as Error).message}`));
  const loops: Loop[] = tasks.map((t) => startLoop(ctx, t, log));
  return {
    stop: async () => {
      await Promise.all(loops.map((l) => l.stop()));
    },
  };
}
