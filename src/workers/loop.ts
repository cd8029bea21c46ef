import type { AppContext } from '../context.ts';
import { metrics } from '../metrics/metrics.ts';
import type { WorkerTask } from './index.ts';

/** A running task loop. */
export interface Loop {
  stop: () => Promise<void>;
  /** Runs the next round now instead of after its delay (used when new work is known to exist). */
  nudge: () => void;
}

/** Runs a task round after round until stopped; a failing round is logged and retried after 1 s. */
export function startLoop(ctx: AppContext, task: WorkerTask, log: (msg: string) => void): Loop {
  const abort = new AbortController();
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const done = (async () => {
    while (!abort.signal.aborted) {
      let delay: number;
      try {
        delay = await task.run(ctx, abort.signal);
      } catch (err) {
        if (abort.signal.aborted) break;
        metrics.taskError(task.name);
        log(`worker ${task.name}: ${(err as Error).message}`);
        delay = 1000;
      }
      if (abort.signal.aborted) break;
      if (delay > 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, delay);
        });
        wake = undefined;
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
    nudge: () => {
      if (timer) clearTimeout(timer);
      wake?.();
    },
  };
}
