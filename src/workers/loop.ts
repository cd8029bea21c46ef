import type { AppContext } from '../context.ts';
import { metrics } from '../metrics/metrics.ts';
import type { WorkerTask } from './index.ts';

/** A running task loop. */
export interface Loop {
  stop: () => Promise<void>;
  /** Runs the next round now instead of after its delay (used when new work is known to exist). */
  nudge: () => void;
}

/**
 * Runs a task round after round until stopped; a failing round is logged and retried after 1 s.
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
        metrics.taskError(task.name);
        log(`worker ${task.name}: ${(err as Error).message}`);
        delay = 1000;
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
        metrics.taskError(task.name);
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
