import type { Static } from '@sinclair/typebox';
import type { BillingProfileRow, TransactionRow } from '../../db/queries/billing.ts';
import type { AutoTopupRow, TopupRow } from '../../db/queries/billing-topups.ts';
import type {
  AutoTopup as AutoTopupSchema,
  Topup,
  Transaction as TransactionSchema,
} from '../../schemas/billing.ts';
import { omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

function iso(d: Date | string): string;
function iso(d: Date | string | null): string | null;
function iso(d: Date | string | null) {
  return d ? new Date(d).toISOString() : null;
}

/** A top-up as the API shows it (unset fields left out, never null). */
export function presentTopup(t: TopupRow) {
  return omitNullsAs<Static<typeof Topup>>({
    id: t.id,
    amount: t.amount,
    currency: t.currency,
    status: t.status,
    attempts: t.attempts,
    nextAttempt: t.status === 'pending' ? iso(t.next_attempt_at) : null,
    error: t.error,
    created: iso(t.created_at),
    completed: iso(t.completed_at),
  });
}

/** The auto top-up settings of an account, its saved payment method and its recent top-ups (unset ones left out). */
export function presentAutoTopup(
  s: AutoTopupRow | undefined,
  profile: BillingProfileRow | undefined,
  usage: { thisMonth: number; recent: TopupRow[] },
) {
  return omitNullsAs<Static<typeof AutoTopupSchema>>({
    enabled: s?.enabled ?? false,
    threshold: s?.threshold ?? null,
    amount: s?.amount ?? null,
    maxPerMonth: s?.max_per_month ?? null,
    topupsThisMonth: usage.thisMonth,
    paymentMethod: profile?.payment_method_id
      ? { provider: profile.provider, id: profile.payment_method_id }
      : null,
    recentTopups: usage.recent.map(presentTopup),
    updated: s ? stamp(s.updated_at, s.updated_by) : null,
  });
}

/** Auto top-up as the API shows it. */
export type AutoTopup = ReturnType<typeof presentAutoTopup>;

/** A ledger entry as the API shows it: credits positive, debits negative (no `balanceAfter` for debits). */
export function presentTransaction(t: TransactionRow) {
  return omitNullsAs<Static<typeof TransactionSchema>>({
    id: t.id,
    type: t.type,
    direction: t.amount >= 0 ? ('credit' as const) : ('debit' as const),
    amount: t.amount,
    balanceAfter: t.balance_after,
    reference: t.reference_id,
    description: t.description,
    created: stamp(t.created_at, t.created_by),
  });
}

/** A transaction as the API shows it. */
export type Transaction = ReturnType<typeof presentTransaction>;
