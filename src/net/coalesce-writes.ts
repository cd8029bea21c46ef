import type { Writable } from 'node:stream';

const corked = new WeakSet<Writable>();

/**
 * Makes the writes to a stream in this turn of the event loop leave together: the stream is corked
 * until the pending callbacks of this tick have run, then uncorked, so a burst of small frames (a
 * window of submit_sm, the answers to a batch of PDUs read in one chunk) is one writev() instead of
 * one system call each. Call before each write; the order of the writes is kept.
 */
export function coalesceWrites(stream: Writable): void {
  if (corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(() => {
    corked.delete(stream);
    stream.uncork();
  });
}
