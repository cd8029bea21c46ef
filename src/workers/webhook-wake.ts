/**
 * In-process wake-up between the webhook fan-out and the delivery loop: when the fan-out made
 * deliveries due, the delivery loop in the same process starts at once instead of at its next poll.
 * Other processes find the work by polling.
 */
const waiters = new Set<() => void>();

/** Wakes every delivery loop of this process that is waiting for work. */
export function wakeWebhookDeliveries(): void {
  for (const w of [...waiters]) w();
}

/** Resolves after `ms`, on a wake-up, or on abort, whichever comes first. */
export function waitForWebhookWork(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      waiters.delete(done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    waiters.add(done);
    signal.addEventListener('abort', done, { once: true });
  });
}
