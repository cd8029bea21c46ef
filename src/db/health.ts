import pg from 'pg';
import { type Db, dropConnections } from './client.ts';

/** Whether the database answers, as a watchdog connection sees it. */
export interface DbHealth {
  /** False while the database does not answer a ping within the timeout. */
  readonly up: boolean;
  stop(): Promise<void>;
}

const TICK_MS = 100;

/**
 * Rejects after `ms` of time during which the event loop ran, counted in 100 ms ticks. A loop held
 * up by synchronous work (building the app compiles every schema for seconds) skips ticks instead
 * of counting them, so it cannot make a prompt database look late; a stalled one is late all the same.
 */
function deadline(ms: number): { expired: Promise<never>; cancel: () => void } {
  let interval: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    let ticks = Math.ceil(ms / TICK_MS);
    interval = setInterval(() => {
      if (--ticks > 0) return;
      clearInterval(interval);
      // After the poll phase, so that an answer already arrived is read first.
      setImmediate(() => reject(new Error(`no answer within ${ms} ms`)));
    }, TICK_MS);
  });
  return { expired, cancel: () => clearInterval(interval) };
}

async function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  const d = deadline(ms);
  try {
    return await Promise.race([work, d.expired]);
  } finally {
    d.cancel();
  }
}

/**
 * Pings the database once a second on a connection of its own (so a busy pool cannot delay it).
 * When two pings in a row fail or take longer than `timeoutMs`, the database is marked down and every pool
 * connection is cut, so the requests waiting on a stalled server fail at once instead of hanging;
 * requests then answer 503 until a ping succeeds again, which needs nothing but the server's return.
 */
export function watchDatabase(
  db: Db,
  opts: { timeoutMs: number; intervalMs?: number; log?: (msg: string) => void },
): DbHealth {
  const intervalMs = opts.intervalMs ?? 1_000;
  const connectionString = db.options.connectionString;
  let up = true;
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const discard = () => {
    const c = client;
    client = undefined;
    if (c && !c.connection.stream.destroyed) c.connection.stream.destroy();
  };

  const ping = async (): Promise<void> => {
    if (!client) {
      const c = new pg.Client({ connectionString });
      c.on('error', () => {});
      client = c;
      await bounded(c.connect(), opts.timeoutMs);
    }
    await bounded(client.query('SELECT 1'), opts.timeoutMs);
  };

  let misses = 0;
  const round = async () => {
    let ok = true;
    try {
      await ping();
      misses = 0;
    } catch {
      ok = false;
      misses++;
      discard();
    }
    if (stopped) return;
    // Two pings in a row: one slow answer from a busy server is not an outage.
    if (!ok && up && misses >= 2) {
      up = false;
      dropConnections(db);
      opts.log?.('database not answering: requests answer 503 until it returns');
    } else if (ok && !up) {
      up = true;
      opts.log?.('database answering again');
    }
  };

  const done = (async () => {
    while (!stopped) {
      await round();
      if (stopped) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, intervalMs);
      });
    }
  })();

  return {
    get up() {
      return up;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake?.();
      const c = client;
      if (c) await bounded(c.end(), 500).catch(() => {});
      discard();
      await done;
    },
  };
}
