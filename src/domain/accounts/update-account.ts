import type { Queryable } from '../../db/client.ts';
import { type AccountRow, updateSendingSettings } from '../../db/queries/accounts.ts';
import { fail } from '../../errors.ts';
import { MAX_VALIDITY_SECONDS, MIN_VALIDITY_SECONDS } from '../../messaging/validity.ts';
import { isTimeZone } from '../../util/zoned-time.ts';
import type { Actor } from '../actor.ts';
import { checkKeywordReply, type KeywordReplyKind } from './keyword-replies.ts';

/** The account fields PUT …/accounts/{accountId} changes; absent ones stay as they are. */
export interface AccountUpdate {
  /** Replace typographic look-alikes with GSM-7 characters before counting and sending. */
  smartEncoding?: boolean;
  /** Default validity of the account's messages, in seconds (MIN_VALIDITY_SECONDS..MAX_VALIDITY_SECONDS); null: none. */
  validityPeriod?: number | null;
  /** The account's name: it brands the opt-out and help replies ("<name>: You are unsubscribed…"). */
  name?: string;
  /** The account's IANA time zone (quiet hours where a number does not tell, reports' days). */
  timezone?: string;
  /** The STOP, START and HELP replies to change (null: back to the default wording); absent ones stay. */
  keywordReplies?: Partial<Record<KeywordReplyKind, string | null>>;
}

/** The longest account name (it leads every opt-out and help reply). */
export const MAX_ACCOUNT_NAME = 100;

/**
 * Changes the account's name, time zone, sending settings (docs/encoding.md) and keyword replies
 * (checked by checkKeywordReply); an unknown account is ACCT-001.
 */
export async function updateAccount(
  db: Queryable,
  accountId: string,
  input: AccountUpdate,
  by: Actor,
): Promise<AccountRow> {
  const v = input.validityPeriod;
  if (
    v !== undefined &&
    v !== null &&
    !(Number.isInteger(v) && v >= MIN_VALIDITY_SECONDS && v <= MAX_VALIDITY_SECONDS)
  )
    fail(
      'VAL-001',
      `\`validityPeriod\` must be whole seconds from ${MIN_VALIDITY_SECONDS} to ${MAX_VALIDITY_SECONDS}, or null to remove it.`,
    );
  let name: string | undefined;
  if (input.name !== undefined) {
    name = input.name.trim();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (!name || name.length > MAX_ACCOUNT_NAME || /[\u0000-\u001f\u007f]/.test(name))
      fail('VAL-001', `\`name\` must be 1 to ${MAX_ACCOUNT_NAME} characters on one line.`);
  }
  if (input.timezone !== undefined && !isTimeZone(input.timezone))
    fail(
      'VAL-001',
      `\`timezone\` must be an IANA time zone such as Europe/Paris: ${JSON.stringify(input.timezone)} is not one.`,
    );
  const given = input.keywordReplies ?? {};
  const replies: Partial<Record<KeywordReplyKind, string | null>> = {};
  for (const kind of ['optOut', 'optIn', 'help'] as const)
    if (given[kind] !== undefined) replies[kind] = checkKeywordReply(kind, given[kind]);
  return (await updateSendingSettings(db, accountId, { ...input, name, replies }, by)) ?? fail('ACCT-001');
}
