import type { AppContext } from '../context.ts';
import { runAutoTopups } from '../domain/billing/run-auto-topups.ts';
import { runDueCampaigns } from '../domain/campaigns/run-due-campaigns.ts';
import { CONTACT_IMPORTS } from '../domain/contacts/run-contact-imports.ts';
import { PURGE_BATCH, purgeExpiredFiles } from '../domain/files/purge-expired-files.ts';
import { runPartitionMaintenance } from '../domain/housekeeping/maintain-partitions.ts';
import { purgeIdempotencyKeys } from '../domain/housekeeping/purge-idempotency-keys.ts';
import { runIntegrationsRound } from '../domain/integrations/run-integrations.ts';
import { runChunks } from '../domain/jobs/run-chunks.ts';
import { CONTACT_JOBS } from '../domain/jobs/run-contact-jobs.ts';
import { completeMeetings, sendDueReminders } from '../domain/meetings/send-due-reminders.ts';
import { createProviderSink } from '../domain/messages/provider-sink.ts';
import { runScheduledSends } from '../domain/send/accept/run-scheduled-sends.ts';
import { expireMessages } from '../domain/send/expire-messages.ts';
import { expireOutbox } from '../domain/smpp/expire-outbox.ts';
import { handleTriggers } from '../domain/workflows/handle-triggers.ts';
import { runDueWorkflows } from '../domain/workflows/run-due-workflows.ts';
import { dispatch } from './dispatch.ts';
import { drain, type Loop, startLoop } from './loop.ts';
import { webhookDelivery } from './webhook-delivery.ts';
import { webhookFanOut } from './webhook-fanout.ts';

/**
 * A background task as its loop runs it: a name and a round that answers how long to wait before
 * the next. A round does one bounded piece of work (typically one claim of its queue through the
 * claim helper, `src/domain/claim.ts`) and returns; it never loops until stopped. Most tasks are
 * written as a `Drained` row ({name, every, batch, run}) and made into this by `drain` (loop.ts).
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

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * The schedule: every task the worker role runs, in the order they start. A `drain` row reads
 * "every `every` ms (at once again while a round does a full `batch`), run `run`"; the engines
 * live in the domain, a row only calls one. Three tasks have their own shape, in their own files:
 * the dispatcher (its round answers its own wait), the webhook fan-out and the webhook delivery
 * (options, wake-ups, a stop hook). To add a task, add a row (and its test).
 */
export const TASKS: WorkerTask[] = [
  // Hands due messages to their providers (domain/send/dispatch).
  dispatch,
  // Deletes Idempotency-Key records older than 24 h.
  drain({ name: 'idempotency-purge', every: 10 * MINUTE, run: (ctx) => purgeIdempotencyKeys(ctx.db) }),
  // Committed events to deliveries, then deliveries to their subscribers (webhook-*.ts).
  webhookFanOut(),
  webhookDelivery(),
  // Runs scheduled campaigns when their next execution comes. A run is claimed with a lease, so a
  // crashed worker's run is retried; the retry first looks for the send job the crashed attempt may
  // have committed (effectively once).
  drain({
    name: 'campaign-scheduler',
    every: SECOND,
    batch: 20,
    run: (ctx, batch) => runDueCampaigns(ctx.db, batch, ctx.config.quietHoursEnabled, ctx.log, ctx.config),
  }),
  // Starts a top-up for accounts whose balance fell below their threshold and charges due top-ups.
  // Starting is one set-based statement under SKIP LOCKED; charging is claimed with a lease and keyed
  // for idempotency at the provider.
  drain({ name: 'auto-topup', every: SECOND, batch: 20, run: (ctx, batch) => runAutoTopups(ctx, batch) }),
  // Turns queued causes (contact created, list joined, inbound text, opt-out; written by database
  // triggers in the cause's transaction) into enrollments, reply wake-ups and stopped runs.
  drain({
    name: 'workflow-enroll',
    every: 500,
    batch: 100,
    run: (ctx, batch) => handleTriggers(ctx.db, batch, ctx.log),
  }),
  // Advances due workflow runs (timers are rows: `workflow_runs.due_at`). Each claim is a lease, each
  // step a transaction keyed by (run, step). Texts wait for the end of quiet hours in the
  // recipient's zone (QUIET_HOURS_ENABLED), as campaigns do.
  drain({
    name: 'workflow-runner',
    every: 500,
    batch: 50,
    run: (ctx, batch) =>
      runDueWorkflows(ctx.db, batch, ctx.log, {
        quietHours: ctx.config.quietHoursEnabled,
        prices: ctx.config.priceTable,
      }),
  }),
  // Meeting timers: sends each meeting's reminder text once when start − reminder comes (a row-based
  // timer, claimed with SKIP LOCKED), and marks meetings completed once they end.
  drain({
    name: 'meeting-reminders',
    every: SECOND,
    batch: 50,
    run: async (ctx, batch) =>
      Math.max(
        await sendDueReminders(ctx.db, batch, ctx.log, ctx.config.priceTable),
        await completeMeetings(ctx.db, batch),
      ),
  }),
  // Runs sends made with `sendAt` when their time comes. Each run takes its job inside the send's
  // transaction, so two workers never send it twice.
  drain({
    name: 'scheduled-sends',
    every: SECOND,
    batch: 20,
    run: (ctx, batch) => runScheduledSends(ctx.db, batch, ctx.log, ctx.config),
  }),
  // Removes expired hosted files (bytes and row). Each file whose bytes could not be removed is
  // logged and kept for the next round.
  drain({
    name: 'sharefile-purge',
    every: MINUTE,
    batch: PURGE_BATCH,
    run: async (ctx) => {
      const { removed, failed } = await purgeExpiredFiles(ctx.db, ctx.config);
      for (const f of failed) {
        ctx.metrics.taskError('sharefile-purge');
        ctx.log(`sharefile-purge file ${f.id}: ${f.error} (kept for the next round)`);
      }
      return removed;
    },
  }),
  // Bulk contact operations (POST …/bulk/contacts) and contact imports (POST …/contacts/imports):
  // one engine (runChunks), two kinds of chunk; a round is one chunk of BULK_CHUNK_SIZE contacts in
  // one transaction, and the next comes at once while there is more.
  drain({
    name: 'bulk-contacts',
    every: SECOND,
    batch: 1,
    run: (ctx, batch) => runChunks(ctx.db, ctx.log, CONTACT_JOBS, ctx.config.bulkChunkSize, batch),
  }),
  drain({
    name: 'contact-imports',
    every: SECOND,
    batch: 1,
    run: (ctx, batch) => runChunks(ctx.db, ctx.log, CONTACT_IMPORTS, ctx.config.bulkChunkSize, batch),
  }),
  // Drops SMPP receipts and inbound texts no receiver bind took within SMPP_SERVER_KEEP_HOURS (SMPP
  // servers do it too; this covers accounts whose credentials exist while no server runs), and
  // submission records well past any receipt.
  drain({
    name: 'smpp-outbox-expiry',
    every: 10 * MINUTE,
    run: (ctx) => expireOutbox(ctx.db, ctx.config.smppServer.keepHours),
  }),
  // Fails queued messages whose validity period ended, refunding them. The dispatcher also checks
  // expiry when it claims a message, so nothing expired is submitted even between two sweeps.
  drain({
    name: 'message-expiry',
    every: (ctx) => ctx.config.messageExpirySweepSeconds * SECOND,
    batch: 5000,
    run: async (ctx, batch) => {
      const { single, bulk } = await expireMessages(ctx.db, batch);
      return Math.max(single, bulk);
    },
  }),
  // CRM integrations (docs/integrations.md): a round leases one connection whose sync or pushes are
  // due, reads up to 20 pages from the CRM (its place saved after each: a killed worker's successor
  // resumes) and writes what Sparrow owes the CRM (opt-outs, opt-ins, messages); goes again at once
  // while connections are due.
  drain({
    name: 'integrations',
    every: SECOND,
    batch: 1,
    run: async (ctx) => ((await runIntegrationsRound(ctx)) ? 1 : 0),
  }),
  // Keeps the month partitions of messages, events and webhook deliveries (docs/scaling.md): at
  // start and then hourly; one worker process does each round (advisory lock).
  drain({
    name: 'partition-maintenance',
    every: 60 * MINUTE,
    run: (ctx) => runPartitionMaintenance(ctx),
  }),
];

/** The task of the schedule named `name` (a test runs one task alone). */
export function task(name: string): WorkerTask {
  const found = TASKS.find((t) => t.name === name);
  if (!found) throw new Error(`no worker task named ${name}`);
  return found;
}

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
