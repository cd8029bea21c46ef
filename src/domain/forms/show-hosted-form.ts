import { type Db, withTx } from '../../db/client.ts';
import { type FormRow, findActiveFormById } from '../../db/queries/forms.ts';
import { bumpFormStat } from '../../db/queries/forms-activity.ts';
import { isId } from '../../util/ids.ts';

/**
 * The active form behind a hosted page, counting the view as an impression (today, UTC). Unknown,
 * inactive or malformed ids answer undefined (the page is a 404) and count nothing.
 */
export async function showHostedForm(db: Db, formId: string): Promise<FormRow | undefined> {
  if (!isId(formId)) return undefined;
  return withTx(db, async (tx) => {
    // Share-locked: a concurrent delete waits, so the counter never names a vanished form.
    const form = await findActiveFormById(tx, formId, { lock: true });
    if (form) await bumpFormStat(tx, form.account_id, form.id, 'impressions');
    return form;
  });
}
