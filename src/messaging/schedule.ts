import { Cron } from 'croner';
import { fail } from '../errors.ts';

/**
 * The next time a cron schedule fires after `after`, in its IANA time zone (UTC when none).
 * Five fields (minute precision) or six (with seconds), as croner reads them. An invalid
 * expression or time zone is a 400.
 */
export function nextCronRun(cron: string, timezone: string | undefined, after: Date = new Date()): Date {
  let next: Date | null;
  try {
    next = new Cron(cron, { timezone: timezone || 'UTC', paused: true }).nextRun(after);
  } catch (err) {
    fail('VAL-001', `Invalid schedule: ${(err as Error).message}`);
  }
  if (!next) fail('VAL-001', 'The schedule never fires again.');
  return next;
}
