import type { Queryable } from '../../db/client.ts';
import { formDays } from '../../db/queries/forms-activity.ts';
import { dayRange } from './date-range.ts';
import { requireForm } from './get-form.ts';

/** A form's activity over a range of UTC days. */
export interface FormAnalytics {
  start: string;
  end: string;
  impressions: number;
  conversions: number;
  /** conversions / impressions over the range, 0 without impressions. */
  conversionRate: number;
  days: { date: string; impressions: number; conversions: number }[];
}

/**
 * Impressions and conversions per UTC day from `start` to `end` (inclusive; default: from the
 * form's creation, at most 366 days, to today), every day listed. Errors: FORM-001, VAL-001.
 */
export async function formAnalytics(
  db: Queryable,
  accountId: string,
  formId: string,
  query: { start?: string; end?: string },
): Promise<FormAnalytics> {
  const form = await requireForm(db, accountId, formId);
  const range = dayRange(query.start, query.end, new Date(form.created_at));
  const rows = await formDays(db, accountId, form.id, range.start, range.end);
  const impressions = rows.reduce((n, r) => n + r.impressions, 0);
  const conversions = rows.reduce((n, r) => n + r.conversions, 0);
  return {
    start: range.start,
    end: range.end,
    impressions,
    conversions,
    conversionRate: impressions > 0 ? Math.round((conversions / impressions) * 10_000) / 10_000 : 0,
    days: rows.map((r) => ({ date: r.day, impressions: r.impressions, conversions: r.conversions })),
  };
}
