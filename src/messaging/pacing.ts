/**
 * When a send should finish, from its numbers' per-second rates and daily caps (issue 25): a rule
 * with no I/O. The numbers are taken as one pool sending as fast as their rates add up to, and as
 * many a day as their caps (and the caps of their groups) let through; days are the account's, in
 * its time zone, as the dispatcher counts them.
 */
import { addDays, type LocalDate, localDate, wallToInstant } from '../util/zoned-time.ts';

const SECONDS_A_DAY = 86_400;

/** A number of the pool. */
export interface PoolNumber {
  id: string;
  /** Messages a second. */
  rate: number;
  /** Messages a day (null: no cap of its own) and how many it has used today. */
  cap: number | null;
  usedToday: number;
}

/** A capped group over some of the pool's numbers. */
export interface PoolGroup {
  cap: number;
  usedToday: number;
  /** The pool's numbers in it. */
  numberIds: string[];
}

/** What the pool can send in a day: on a fresh day and on what is left of today (null: no cap). */
export interface DailyCapacity {
  perDay: number | null;
  leftToday: number | null;
}

/**
 * The pool's daily capacity: each number's cap, where a group caps several of them together the
 * lesser of the group's cap and theirs added up (a number in several capped groups counts in the
 * tightest). Uncapped numbers outside every capped group make it unbounded.
 */
export function dailyCapacity(numbers: PoolNumber[], groups: PoolGroup[]): DailyCapacity {
  const byId = new Map(numbers.map((n) => [n.id, n]));
  const placed = new Set<string>();
  let perDay: number | null = 0;
  let leftToday: number | null = 0;
  const add = (day: number | null, left: number | null) => {
    perDay = perDay === null || day === null ? null : perDay + day;
    leftToday = leftToday === null || left === null ? null : leftToday + Math.max(0, left);
  };
  // Tightest group first: a number shared by two capped groups is counted in the smaller.
  for (const g of [...groups].sort((a, b) => a.cap - b.cap)) {
    const members = g.numberIds.filter((id) => byId.has(id) && !placed.has(id));
    if (members.length === 0) continue;
    for (const id of members) placed.add(id);
    const own = members.map((id) => byId.get(id) as PoolNumber);
    const ownDay = own.every((n) => n.cap !== null) ? own.reduce((s, n) => s + (n.cap as number), 0) : null;
    const ownLeft = own.every((n) => n.cap !== null)
      ? own.reduce((s, n) => s + Math.max(0, (n.cap as number) - n.usedToday), 0)
      : null;
    add(
      ownDay === null ? g.cap : Math.min(g.cap, ownDay),
      ownLeft === null ? g.cap - g.usedToday : Math.min(g.cap - g.usedToday, ownLeft),
    );
  }
  for (const n of numbers) {
    if (placed.has(n.id)) continue;
    add(n.cap, n.cap === null ? null : n.cap - n.usedToday);
  }
  return { perDay, leftToday };
}

/** What the finish of a send is estimated from. */
export interface FinishInput {
  /** The account's time zone: its days are the caps' days. */
  zone: string;
  /** Now (ms). */
  now: number;
  /** When sending can start (ms): now, a scheduled send's time, or the end of a hold. */
  start: number;
  /** Messages to go through the pool before the send is done: its own and those ahead of it. */
  messages: number;
  /** Messages a second, all the pool's numbers together. */
  rate: number;
  capacity: DailyCapacity;
}

/**
 * The instant the last of `messages` should go: at `rate` a second from `start`; with a daily cap,
 * what is left of the start's day (all of a cap on a later day), then a day's cap from each day's
 * start, the last day's share at `rate` from its start. Answers ms.
 */
export function estimateFinish(p: FinishInput): number {
  const rate = Math.max(p.rate, 1e-6);
  const at = (from: number, n: number) => Math.ceil(from + (n / rate) * 1000);
  if (p.messages <= 0) return p.start;
  const { perDay, leftToday } = p.capacity;
  if (perDay === null) return at(p.start, p.messages);
  const firstDay = localDate(p.zone, p.start);
  const dayStart = (d: LocalDate, k: number) => wallToInstant(p.zone, addDays(d, k), 0);
  const sameDay = sameDate(firstDay, localDate(p.zone, p.now));
  const leftOfFirst = sameDay && leftToday !== null ? Math.min(leftToday, perDay) : perDay;
  const secondsLeft = Math.max(0, (dayStart(firstDay, 1) - p.start) / 1000);
  const first = Math.max(0, Math.min(leftOfFirst, Math.floor(rate * secondsLeft)));
  if (p.messages <= first) return at(p.start, p.messages);
  const rest = p.messages - first;
  const fullDay = Math.max(1, Math.min(perDay, Math.floor(rate * SECONDS_A_DAY)));
  const days = Math.ceil(rest / fullDay);
  return at(dayStart(firstDay, days), rest - (days - 1) * fullDay);
}

function sameDate(a: LocalDate, b: LocalDate): boolean {
  return a.year === b.year && a.month === b.month && a.day === b.day;
}
