/**
 * In-process wake-up between the webhook fan-out and the delivery task: when the fan-out made
 * deliveries due, the delivery task of the same process runs its next round at once instead of at
 * its next poll. Other processes find the work by polling.
 */
const listeners = new Set<() => void>();

/** Wakes every delivery task of this process. */
export function wakeWebhookDeliveries(): void {
  for (const l of [...listeners]) l();
}

/** Calls `listener` on each wake-up until the answered function is called. */
export function onWebhookWork(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
