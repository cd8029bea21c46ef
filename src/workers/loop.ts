import type { AppContext } from '../context.ts';
import type { WorkerTask } from './index.ts';

/**
 * A task that drains a queue: one round does at most `batch` items and answers how many it did; a
 * full round goes again at once (there may be more), any other waits `every`. A task without a
 * batch runs every `every` (periodic housekeeping).
 */
export interface Drained {
  name: string;
  /** The wait after a round that was not full, in ms, or read from the settings. */
  every: number | ((ctx: AppContext) => number);
  /** The most one round does; a round that did this many goes again at once. None: every round waits. */
  batch?: number;
  /** One round of at most `batch` items (Infinity without one); answers how many it did (a periodic task: anything). */
  run: (ctx: AppContext, batch: number, signal: AbortSignal) => Promise<unknown>;
  subscribe?: WorkerTask['subscribe'];
  stop?: WorkerTask['stop'];
}

/**
 * The drain helper: the task the loop runs for a `Drained` row ("run a batch; if it was full go
 * again at once, else wait `every`").
 */
export function drain({ every, batch, run, ...rest }: Drained): WorkerTask {
  const wait = typeof every === 'function' ? every : () => every;
  return {
    ...rest,
    run: async (ctx, signal) => {
      const done = await run(ctx, batch ?? Number.POSITIVE_INFINITY, signal);
      return batch !== undefined && typeof done === 'number' && done >= batch ? 0 : wait(ctx);
    },
  };
}

/** A running task loop. */
export interface Loop {
  stop: () => Promise<void>;
  /** Runs the next round now instead of after its delay (used when new work is known to exist). */
  nudge: () => void;
}

/** A round that failed because the process is out of file descriptors waits this long before the next. */
export const OUT_OF_FILES_BACKOFF_MS = 5000;
const OUT_OF_FILES = /\b(EMFILE|ENFILE)\b/;
/** Shared by every loop of the process: the condition is the process's, so it is logged once a minute. */
const outOfFiles = { rounds: 0, loggedAt: 0 };

/**
 * Runs a task round after round until stopped; a failing round is logged and retried after 1 s.
 * A round that fails with EMFILE/ENFILE (no file descriptor left for a connection) backs off
 * OUT_OF_FILES_BACKOFF_MS, and the condition is logged once a minute for all loops together.
 * A task's `subscribe` can cut the wait short (a nudge while a round runs makes the next one start
 * at once); its `stop` runs once after the last round.
 */
export function startLoop(ctx: AppContext, task: WorkerTask, log: (msg: string) => void): Loop {
  const abort = new AbortController();
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let nudged = false;
  const nudge = () => {
    nudged = true;
    if (timer) clearTimeout(timer);
    wake?.();
  };
  const unsubscribe = task.subscribe?.(nudge);
  const done = (async () => {
    while (!abort.signal.aborted) {
      let delay: number;
      nudged = false;
      try {
        delay = await task.run(ctx, abort.signal);
      } catch (err) {
        if (abort.signal.aborted) break;
        ctx.metrics.taskError(task.name);
        const e = err as NodeJS.ErrnoException;
        if (OUT_OF_FILES.test(`${e.code ?? ''} ${e.message}`)) {
          outOfFiles.rounds++;
          if (Date.now() - outOfFiles.loggedAt >= 60_000) {
            outOfFiles.loggedAt = Date.now();
            log(
              `workers: the process is out of file descriptors (${e.message}; ${outOfFiles.rounds} rounds so far): ` +
                `rounds wait ${OUT_OF_FILES_BACKOFF_MS / 1000} s; lower HTTP_MAX_CONNECTIONS or raise \`ulimit -n\``,
            );
          }
          delay = OUT_OF_FILES_BACKOFF_MS;
        } else {
          log(`worker ${task.name}: ${e.message}`);
          delay = 1000;
        }
      }
      if (abort.signal.aborted) break;
      if (delay > 0 && !nudged) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, delay);
        });
        wake = undefined;
        timer = undefined;
      }
    }
    unsubscribe?.();
    if (task.stop) {
      try {
        await task.stop(ctx);
      } catch (err) {
        ctx.metrics.taskError(task.name);
        log(`worker ${task.name}: stopping: ${(err as Error).message}`);
      }
    }
  })();
  return {
    stop: async () => {
      abort.abort();
      if (timer) clearTimeout(timer);
      wake?.();
      await done;
    },
    nudge,
  };
}
