import { fail } from '../../errors.ts';
import { nextCronRun } from '../../messaging/schedule.ts';

/**
 * The first firing of a campaign's `schedule.cron` (in `timezone`), refusing a schedule that fires
 * more than once a minute (VAL-001, 400): croner reads a sixth field of seconds (`* * * * * *`
 * fired every second), and each firing is a whole send. Any seconds field of two or more values
 * fires twice within some minute; the first three firings from now include such a pair (the
 * first may be the last second of the current minute, the next matching minute has them all).
 */
export function firstCronRun(cron: string, timezone: string | undefined): Date {
  const first = nextCronRun(cron, timezone);
  let prev = first;
  for (let i = 0; i < 2; i++) {
    const next = nextCronRun(cron, timezone, prev);
    if (next.getTime() - prev.getTime() < 60_000) {
      fail(
        'VAL-001',
        `\`schedule.cron\` "${cron}" fires more than once a minute (${prev.toISOString()}, ${next.toISOString()}): a campaign runs at most once a minute.`,
      );
    }
    prev = next;
  }
  return first;
}

/**
 * The next run of a recurring campaign after the run that was due at `due`: the schedule's next
 * firing, and never within a minute of `due` (a stored schedule that fires more often, saved before
 * such schedules were refused, runs once a minute instead of at every firing), nor in the past.
 */
export function nextCampaignRun(
  cron: string,
  timezone: string | undefined,
  due: Date | null,
  now = new Date(),
): Date {
  const floor = due ? due.getTime() + 60_000 - 1 : 0;
  return nextCronRun(cron, timezone, new Date(Math.max(now.getTime(), floor)));
}
