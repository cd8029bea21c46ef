/** A paid plan: its name and the smallest commitment it accepts per billing period. */
export interface Plan {
  id: string;
  name: string;
  /** Smallest commitment per billing period, in whole units of the account currency. */
  minimumCommitment: number;
}

/**
 * The paid plans. A commitment is the amount paid per billing period (`frequency`); completing a
 * checkout charges it once and credits it to the balance.
 */
export const PLANS = {
  starter: { id: 'starter', name: 'Starter', minimumCommitment: 20 },
  growth: { id: 'growth', name: 'Growth', minimumCommitment: 100 },
  business: { id: 'business', name: 'Business', minimumCommitment: 500 },
} as const satisfies Record<string, Plan>;

/**
 * The largest commitment one checkout accepts, in whole units of the account currency: a bound on
 * what one payment (real or simulated) can credit. Larger amounts are arranged with the operator.
 */
export const MAX_COMMITMENT = 50_000;

/** A plan id. */
export type PlanId = keyof typeof PLANS;

export const PLAN_IDS = Object.keys(PLANS) as PlanId[];

/** How often the commitment is paid. */
export const FREQUENCIES = ['monthly', 'annually'] as const;

/** A billing frequency. */
export type Frequency = (typeof FREQUENCIES)[number];

/** Whole currency units → the provider's minor units (cents). */
export function minorUnits(amount: number): number {
  return Math.round(amount * 100);
}
