/**
 * The bounds of attribute conditions (a smart list's `filter.attributes`, a send's, a campaign's or
 * a bulk job's `filters.attributes`): what one filter may make PostgreSQL compare for each contact.
 * Before them one condition could carry 120,000 values (under 1 MiB of JSON), planned as as many
 * comparisons per contact: tens of seconds of PostgreSQL for one read, other accounts' reads slowed
 * meanwhile. Each value is now a member of an array matched by hash (db/queries/lists.ts), and
 * these limits bound the arrays.
 */
import { AppError } from '../../errors.ts';
import { MAX_CONDITION_VALUES, MAX_FILTER_CONDITIONS, MAX_FILTER_VALUES } from '../../schemas/limits.ts';

/**
 * Refuses (400 VAL-001, naming the limit and the field) attribute conditions over the limits; the
 * schemas bound each condition already, this bounds their sum. `where` names the field, e.g.
 * `filter.attributes`.
 */
export function checkConditionValues(conditions: { value: unknown[] }[] | undefined, where: string): void {
  if (!conditions) return;
  if (conditions.length > MAX_FILTER_CONDITIONS)
    throw new AppError(
      'VAL-001',
      `\`${where}\` has ${conditions.length} conditions: at most ${MAX_FILTER_CONDITIONS} are allowed.`,
    );
  let total = 0;
  for (const [i, c] of conditions.entries()) {
    if (c.value.length > MAX_CONDITION_VALUES)
      throw new AppError(
        'VAL-001',
        `\`${where}[${i}].value\` has ${c.value.length} values: at most ${MAX_CONDITION_VALUES} are allowed per condition.`,
      );
    total += c.value.length;
  }
  if (total > MAX_FILTER_VALUES)
    throw new AppError(
      'VAL-001',
      `\`${where}\` has ${total} values in all: at most ${MAX_FILTER_VALUES} are allowed per filter (${MAX_CONDITION_VALUES} per condition).`,
    );
}
