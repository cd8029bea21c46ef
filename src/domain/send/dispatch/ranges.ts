import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../../context.ts';
import { type Queryable, withTx } from '../../../db/client.ts';
import { holdForNextDay } from '../../../db/queries/daily-caps.ts';
import {
  claimRange,
  closeJobDispatch,
  type ExpiredRange,
  jobMessagesAfter,
  lockExpiredRange,
  lockOpenJob,
  type OpenJob,
  type RangeMessage,
  type RangeRef,
  rangeMessages,
  rangeNumbers,
  renewRange,
  settleTurn,
  type Turn,
  takeTurn,
} from '../../../db/queries/dispatch-ranges.ts';
import type { ClaimedMessage } from '../../../db/queries/message-dispatch.ts';
import { failCandidates } from '../../../db/queries/message-dispatch.ts';
import { OPTED_OUT_ERROR } from '../../../db/queries/messages.ts';
import { grantSends } from '../../../db/queries/senders.ts';
import { EXPIRED_ERROR } from '../../../messaging/validity.ts';
import { numberBlocker } from './checks.ts';
import { applyDailyCaps } from './daily-caps.ts';
import { type RangePace, rangeGrain, turnCharge } from './grain.ts';

/** What a range claim hands to the dispatcher. */
export interface RangeClaim {
  claimed: (ClaimedMessage & { ranged: true; submittedSecond: number })[];
  /** The range to end once the outcomes are recorded. */
  range?: RangeRef;
  /** Every queued message of the range was claimed or failed (none waits for a rate slot). */
  complete: boolean;
  throttled: boolean;
  full: boolean;
  /** Messages of the range held for the next day (their number's or group's daily cap is used up). */
  held: number;
  /** A new range: the provider whose grain it was claimed under (observeRange learns from it). */
  pace?: RangePace;
}

const NOTHING: RangeClaim = { claimed: [], complete: true, throttled: false, full: false, held: 0 };
/** Exhausted jobs one claim closes before it gives up looking for the next one with messages. */
const MAX_JOBS_PER_CLAIM = 8;
/** Shared by every message without media (providers only read it). */
const NO_MEDIA: { url: string }[] = Object.freeze([]) as unknown as { url: string }[];

/** Accounts whose turn passed in this process because none of their numbers had a slot, by second. */
const passed = new WeakMap<AppContext, Map<string, number>>();

/** The accounts whose turns are passed over for the rest of this second (passThisSecond). */
function throttledAccounts(ctx: AppContext): string[] {
  const now = Math.floor(Date.now() / 1000);
  const m = passed.get(ctx);
  if (!m) return [];
  const out: string[] = [];
  for (const [account, second] of m) {
    if (second >= now) out.push(account);
    else m.delete(account);
  }
  return out;
}

function passThisSecond(ctx: AppContext, accountId: string, second: number): void {
  let m = passed.get(ctx);
  if (!m) {
    m = new Map();
    passed.set(ctx, m);
  }
  m.set(accountId, second);
}

/** Accounts whose ranges this process's lanes hold now, with how many (holdAccount). */
const holding = new WeakMap<AppContext, Map<string, number>>();

/**
 * Counts a range of the account as held by a lane of this process until `release` is called (the
 * range's outcomes are recorded): the express lane passes over such accounts (dispatchRound).
 */
export function holdAccount(ctx: AppContext, accountId: string): () => void {
  let m = holding.get(ctx);
  if (!m) {
    m = new Map();
    holding.set(ctx, m);
  }
  const held = m;
  held.set(accountId, (held.get(accountId) ?? 0) + 1);
  return () => {
    const n = (held.get(accountId) ?? 1) - 1;
    if (n <= 0) held.delete(accountId);
    else held.set(accountId, n);
  };
}

function heldAccounts(ctx: AppContext): string[] {
  return [...(holding.get(ctx)?.keys() ?? [])];
}

/**
 * Claims up to `limit` bulk messages in one short transaction: first a range whose lease passed
 * (its worker died; its still-queued messages go again under the same submission key), else the
 * next range of the account whose turn it is (accounts in turn, weighted: takeTurn; within it
 * lockOpenJob's order), at most the grain of its numbers' provider (grain.ts). Each number's rate
 * window is asked for slots (and a capped number's daily counters for as many); a new range ends
 * before the first message whose number got none (the rest waits for the job's next claim), except
 * that the messages of a number whose daily cap is used up are held for the next day
 * (holdForNextDay) and the range goes on past them; an account that got no slot at all is passed
 * over by this process's claims until the next second. Messages that must not be sent (contact
 * stopped, validity ended, number gone) are failed and refunded here. The turn is charged what the claim is expected
 * to take (turnCharge) when taken, and settled to what it took once it committed (or failed).
 */
export async function claimRangeBatch(
  ctx: AppContext,
  limit: number,
  opts: { express?: boolean } = {},
): Promise<RangeClaim> {
  const turns: Turn[] = [];
  let taken = 0;
  try {
    const claim = await withTx(
      ctx.db,
      async (tx) => {
        // The express lane takes no range over (one may be thousands of messages), passes over the
        // accounts whose ranges the other lanes hold, and takes a job only when what it has left
        // fits in one claim: it serves the small sends of the accounts waiting for a lane.
        const expired = opts.express ? undefined : await lockExpiredRange(tx);
        if (expired) return claimMessages(ctx, tx, expired, await rangeMessages(tx, expired), false);
        // The account whose turn it is, then its next open job with messages left; a job found
        // exhausted is closed and the account's next one tried in the same claim (a lane that came
        // back empty-handed would idle until the next round), an account with none left gives
        // its turn back and the next account's turn is taken. One message more than the limit is
        // read to know whether the range ends the job.
        let turn: Turn | undefined;
        const passOver = throttledAccounts(ctx);
        const busy = opts.express ? heldAccounts(ctx) : [];
        for (let tries = 0; tries < MAX_JOBS_PER_CLAIM; tries++) {
          if (!turn) {
            // On another connection, committed at once (takeTurn): the turn holds no lock of this claim.
            turn = await takeTurn(ctx.db, turnCharge(ctx, limit), [...passOver, ...busy]);
            if (!turn) break;
            turns.push(turn);
          }
          const open = await lockOpenJob(tx, turn.accountId);
          if (!open) {
            turn = undefined;
            continue;
          }
          const messages = await jobMessagesAfter(tx, open, limit + 1);
          if (messages.length === 0) {
            await closeJobDispatch(tx, open);
            continue;
          }
          if (opts.express && messages.length > limit) {
            // The express lane takes only what it hands over in one claim: a range of a big send at
            // a slow carrier would hold it as it holds the other lanes.
            busy.push(turn.accountId);
            turn = undefined;
            continue;
          }
          const result = await claimMessages(ctx, tx, open, messages, true, limit);
          if (result.claim.range || !result.claim.throttled) return result;
          // Its next message's number has no rate slot left this second: the turn passes to the
          // next account (the lanes would otherwise stop until the next second, and an account
          // whose number takes 10 a second would hold another's at that pace).
          passThisSecond(ctx, turn.accountId, result.second);
          passOver.push(turn.accountId);
          turn = undefined;
        }
        return { claim: passOver.length > 0 ? { ...NOTHING, throttled: true } : NOTHING, size: 0 };
      },
      { indexLookups: true },
    );
    taken = claim.size;
    return claim.claim;
  } finally {
    // The last turn is settled to the claim's size, any other (an account found with nothing left,
    // or a claim that failed) given back whole.
    for (let i = 0; i < turns.length; i++) {
      await settleTurn(ctx.db, turns[i], i === turns.length - 1 ? taken : 0).catch(() => {});
    }
  }
}

/**
 * Makes the claim of the messages read: a new range of `source` (an open job; `isNew`) or the
 * still-queued messages of a range taken over.
 */
async function claimMessages(
  ctx: AppContext,
  tx: Queryable,
  source: OpenJob | ExpiredRange,
  read: RangeMessage[],
  isNew: boolean,
  limit = read.length,
): Promise<{ claim: RangeClaim; size: number; second: number }> {
  const job = isNew ? (source as OpenJob) : undefined;
  const expired = isNew ? undefined : (source as ExpiredRange);
  const accountId = source.account_id;
  let messages = read;
  // Each number is checked once for the range; each message for its contact.
  const numberIds = [...new Set(messages.map((m) => m.phone_number_id).filter((id) => id !== null))];
  const numbers = new Map((await rangeNumbers(tx, accountId, numberIds)).map((n) => [n.id, n]));
  let jobHasMore = false;
  let pace: RangePace | undefined;
  if (job) {
    // At most the grain of the range's providers: a lane holds its range about a second.
    const providers = new Set<string>();
    for (const n of numbers.values()) if (n.provider) providers.add(n.provider);
    const g = rangeGrain(ctx, providers, limit);
    pace = g.pace;
    if (messages.length > g.grain) {
      jobHasMore = true;
      messages = messages.slice(0, g.grain);
    }
  }
  const numberError = new Map<string | null, { code: string; description: string } | null>();
  for (const id of [...numberIds, null]) {
    const n = id === null ? undefined : numbers.get(id);
    numberError.set(
      id,
      numberBlocker(ctx, {
        phone_number_id: id,
        number_active: n?.number_active ?? false,
        number_verified: n?.number_verified ?? false,
        provider: n?.provider ?? null,
        throughput_mps: n?.throughput_mps ?? null,
      }),
    );
  }

  const failures: Parameters<typeof failCandidates>[1] = [];
  const wants = new Map<string, { accountId: string; mps: number; wanted: number }>();
  for (const m of messages) {
    const error = m.stopped
      ? OPTED_OUT_ERROR
      : m.expired
        ? EXPIRED_ERROR
        : numberError.get(m.phone_number_id);
    if (error) failures.push({ accountId, id: m.id, error });
    else {
      const id = m.phone_number_id as string;
      const w = wants.get(id) ?? {
        accountId,
        mps: numbers.get(id)?.throughput_mps as number,
        wanted: 0,
      };
      w.wanted++;
      wants.set(id, w);
    }
  }
  // Granted on another connection, in a statement of its own (see claimBatch in dispatch-batch.ts).
  const rate = await grantSends(
    ctx.db,
    [...wants].map(([phoneNumberId, w]) => ({ phoneNumberId, ...w })),
  );
  const second = rate.second;
  const { granted, exhausted } = await applyDailyCaps(
    ctx,
    rate.granted,
    [...wants.keys()].map((id) => ({
      accountId,
      phoneNumberId: id,
      capped: numbers.get(id)?.daily_capped ?? false,
    })),
  );

  const failing = new Set(failures.map((f) => f.id));
  const claimed: RangeClaim['claimed'] = [];
  const held: { accountId: string; id: string; day: string }[] = [];
  let throttled = false;
  let skipped = false;
  let last: string | undefined;
  for (const m of messages) {
    if (!failing.has(m.id)) {
      const left = granted.get(m.phone_number_id as string) ?? 0;
      const day = left === 0 ? exhausted.get(m.phone_number_id as string) : undefined;
      if (day !== undefined) {
        // Its number's day is used up: it leaves the range for the next day's hold.
        held.push({ accountId, id: m.id, day });
        last = m.id;
        continue;
      }
      if (left === 0) {
        throttled = true;
        // A new range stops here; a range taken over keeps its other messages for the next round.
        if (job) break;
        skipped = true;
        continue;
      }
      granted.set(m.phone_number_id as string, left - 1);
      claimed.push(
        toClaimed(accountId, m, numbers.get(m.phone_number_id as string)?.provider as string, second),
      );
    }
    last = m.id;
  }

  // Before the range is written: the hold's cursor it locks is the only row it may wait for
  // (holdForNextDay).
  await holdForNextDay(tx, held, ctx.config.quietHoursEnabled);
  let range: RangeRef | undefined;
  let size = 0;
  const owner = randomUUID();
  if (expired) {
    await renewRange(tx, expired, ctx.config.dispatchLeaseSeconds, owner);
    range = refOf(expired, owner);
  } else if (job && last !== undefined) {
    range = {
      accountId: job.account_id,
      jobId: job.id,
      notBefore: job.not_before,
      lo: messages[0].id,
      hi: last,
      owner,
    };
    const ended = !jobHasMore && last === messages[messages.length - 1].id;
    // Held messages are not handed out: they do not count in the account's share (settleTurn).
    size = messages.findIndex((m) => m.id === last) + 1 - held.length;
    await claimRange(tx, { ...range, leaseSeconds: ctx.config.dispatchLeaseSeconds, exhausted: ended });
  }
  await failCandidates(
    tx,
    failures.filter((f) => last !== undefined && f.id <= last),
  );
  return {
    claim: {
      claimed,
      range,
      complete: !skipped,
      throttled,
      full: expired !== undefined || jobHasMore || read.length >= limit,
      held: held.length,
      pace,
    },
    size,
    second,
  };
}

function refOf(r: ExpiredRange, owner: string): RangeRef {
  return { accountId: r.account_id, jobId: r.job_id, notBefore: r.not_before, lo: r.lo, hi: r.hi, owner };
}

function toClaimed(
  accountId: string,
  m: RangeMessage,
  provider: string,
  second: number,
): RangeClaim['claimed'][number] {
  return {
    account_id: accountId,
    id: m.id,
    // The attempt being made: the row counts it when the outcome is recorded.
    attempts: m.attempts + 1,
    from_number: m.from_number,
    to_number: m.to_number,
    body: m.body,
    encoding: m.encoding,
    segments: m.segments,
    media: m.media ?? NO_MEDIA,
    provider,
    price: m.price,
    expires_at: m.expires_at,
    ranged: true,
    submittedSecond: second,
  };
}
