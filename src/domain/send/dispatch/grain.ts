import type { AppContext } from '../../../context.ts';
import type { TurnCharge } from '../../../db/queries/dispatch-ranges.ts';

/**
 * The grain of a turn (issue 25): how many bulk messages one range claim may take from numbers of
 * a provider, so that a lane holds its range for about TURN_MS whatever the provider's pace.
 *
 * Accounts take turns range by range (takeTurn), and a lane keeps its range until every message of
 * it is handed over. At the simulator's pace a range of 2,000 is gone in a fraction of a second;
 * at a carrier capped at 100 messages a second, shared by four lanes, it was held 80 s, so the turns
 * the dispatcher gave in proportion to the weights reached the carrier as whatever four ranges the
 * lanes happened to hold, and another account's 50 texts waited for them. The grain is learnt from
 * what each range took to hand over (per provider of its numbers, in this process): the next range
 * takes what the last one would have handed over in TURN_MS, between a floor and the batch size.
 */

/** About how long a lane holds one range. */
export const TURN_MS = 1000;
/** Batches in flight at once in one process (one claims while another sends or writes back). */
export const LANES = 4;
/** The most a grain grows from one range to the next (observeRange). */
const GROWTH = 2;

/** What a range of a provider's numbers took to hand over, as the grain learns from it. */
export interface RangePace {
  provider: string;
  /** The grain the range was claimed under. */
  grain: number;
}

const grains = new WeakMap<AppContext, Map<string, number>>();

function grainsOf(ctx: AppContext): Map<string, number> {
  let g = grains.get(ctx);
  if (!g) {
    g = new Map();
    grains.set(ctx, g);
  }
  return g;
}

/**
 * The least a grain may be: enough for the lanes together to fill the provider's slots
 * (DISPATCH_IN_FLIGHT). A provider slow to answer but with many answers in flight (an HTTP API)
 * takes as long for one message as for many; below this its grain would shrink range after range
 * and its lanes would leave slots unused.
 */
function floorOf(ctx: AppContext): number {
  return Math.max(1, Math.ceil(ctx.config.dispatchInFlight / LANES));
}

/**
 * The most one range of these providers' numbers may take now: the least of their grains, the
 * floor for a provider not seen yet (the first range learns its pace), never more than `limit`.
 * Answers the provider whose grain it is, to report the range's pace to (observeRange).
 */
export function rangeGrain(
  ctx: AppContext,
  providers: Iterable<string>,
  limit: number,
): { grain: number; pace?: RangePace } {
  const known = grainsOf(ctx);
  let grain = limit;
  let pace: RangePace | undefined;
  for (const provider of providers) {
    const g = known.get(provider) ?? floorOf(ctx);
    if (g < grain || pace === undefined) {
      if (g < grain) grain = g;
      pace = { provider, grain: g };
    }
  }
  return { grain: Math.max(1, Math.min(grain, limit)), pace };
}

/**
 * What a turn is charged before its claim (takeTurn): `limit`, or the grain of the account's
 * numbers' provider where it is smaller (the floor for one not seen yet). The claim settles it to
 * what it took; a charge close to that keeps the shares other lanes see meanwhile close to true.
 */
export function turnCharge(ctx: AppContext, limit: number): TurnCharge {
  const grains = [...grainsOf(ctx)].map(([provider, grain]) => ({ provider, grain }));
  return { limit, grains, unknown: floorOf(ctx) };
}

/**
 * Learns from a range: `taken` messages handed over to the provider in `ms` (from the first mark to
 * the last answer: the provider's pace, not the dispatcher's own claim and writes, which the lanes
 * overlap anyway). A range that filled its grain, or took longer than TURN_MS, sets the provider's
 * next grain to what it would have handed over in TURN_MS; a short range done quickly (a small
 * job) says nothing of the pace.
 *
 * The grain shrinks at once but grows at most GROWTH-fold a range: a range that had the provider
 * to itself (the first of a send, before the other lanes claimed) goes at the provider's whole
 * pace, which the lanes then share. Taken as it came, a carrier capped at 200 a second gave a
 * grain of 200 where four lanes hand over 50 each in TURN_MS, and the first turns were four
 * ranges of four seconds: two accounts at 3:1 reached the carrier at 69-84 % instead of 75 %.
 */
export function observeRange(ctx: AppContext, pace: RangePace, taken: number, ms: number, max: number): void {
  if (taken <= 0 || (taken < pace.grain && ms <= TURN_MS)) return;
  const next = Math.min(Math.floor((taken * TURN_MS) / Math.max(ms, 1)), pace.grain * GROWTH);
  grainsOf(ctx).set(pace.provider, Math.min(max, Math.max(floorOf(ctx), next)));
}
