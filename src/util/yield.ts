/**
 * Lets I/O and other tasks run before a long loop goes on. A big send parses and builds thousands
 * of recipients in one transaction; without a turn given back every few hundred, each of its
 * synchronous stretches (tens of milliseconds) holds every other request and the dispatcher's next
 * step behind it, and another account's one text waits for a dozen of them (issue 25).
 */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Recipients (or rows) a loop works through between turns given back (yieldToLoop). */
export const YIELD_EVERY = 200;
