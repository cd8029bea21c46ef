/**
 * The account's replies to the compliance keywords (STOP, START, HELP): the account's own texts
 * (accounts.opt_out_text, opt_in_text, help_text) or, where it has none, the default wording, every
 * one branded with the account's name at the time of the reply through the merge field
 * `{{{accountName}}}`. Checked when set so a reply always does what carriers expect of it.
 */
import type { AccountRow } from '../../db/queries/accounts.ts';
import type { ContactRow } from '../../db/queries/contacts.ts';
import { fail } from '../../errors.ts';
import type { KeywordAction } from '../../messaging/keywords.ts';
import { parseTemplate, renderTemplate } from '../../messaging/render.ts';
import { MAX_TEXT_LENGTH } from '../../messaging/text-rules.ts';

/** The API's names of the three replies. */
export type KeywordReplyKind = 'optOut' | 'optIn' | 'help';

/** The replies as the API shows and takes them. */
export type KeywordReplies = Record<KeywordReplyKind, string>;

/** A change of the replies: a text, or null for the default wording; absent ones stay. */
export type KeywordRepliesUpdate = Partial<Record<KeywordReplyKind, string | null>>;

/** The merge field of the account's name (the only one not of the contact). */
export const ACCOUNT_NAME_FIELD = 'accountName';

/** Merge fields a reply may carry: the account's name and the texter's own fields. */
export const REPLY_MERGE_FIELDS = [ACCOUNT_NAME_FIELD, 'firstName', 'lastName', 'email', 'mobile', 'country'];

/** The default wording: what every account answered before the texts were settings. */
export const DEFAULT_KEYWORD_REPLIES: KeywordReplies = {
  optOut:
    '{{{accountName}}}: You are unsubscribed and will receive no further messages. Reply START to resubscribe.',
  optIn: '{{{accountName}}}: You are subscribed again. Reply HELP for help, STOP to unsubscribe.',
  help: '{{{accountName}}}: Reply STOP to unsubscribe. Msg & data rates may apply.',
};

const KIND_OF_ACTION: Record<KeywordAction, KeywordReplyKind> = {
  'opt-out': 'optOut',
  'opt-in': 'optIn',
  help: 'help',
};

/** The reply templates in effect for the account (its own, else the defaults). */
export function keywordReplies(a: AccountRow): KeywordReplies {
  const own = (text: string | null) => (text?.trim() ? text.trim() : undefined);
  return {
    optOut: own(a.opt_out_text) ?? DEFAULT_KEYWORD_REPLIES.optOut,
    optIn: own(a.opt_in_text) ?? DEFAULT_KEYWORD_REPLIES.optIn,
    help: own(a.help_text) ?? DEFAULT_KEYWORD_REPLIES.help,
  };
}

/** The text a texter gets for a keyword: the account's reply with its merge fields filled. */
export function keywordReplyText(
  account: AccountRow | undefined,
  action: KeywordAction,
  contact: ContactRow,
): string {
  const template = account
    ? keywordReplies(account)[KIND_OF_ACTION[action]]
    : DEFAULT_KEYWORD_REPLIES[KIND_OF_ACTION[action]];
  return renderTemplate(template, {
    firstName: contact.first_name,
    lastName: contact.last_name,
    email: contact.email,
    mobile: contact.mobile_number,
    country: contact.mobile_country,
    // The contact's own attributes are not offered: only the account's name is read from here.
    attributes: { [ACCOUNT_NAME_FIELD]: account?.name ?? 'Sparrow' },
  }).trim();
}

// "no further messages", "will not receive texts", "won't get any more SMS": a statement that no
// more messages will be sent, within one sentence (bounded, so linear in the text).
const NO_MORE_MESSAGES =
  /(?:\bno\b|\bnot\b|n['’]t\b|\bnever\b)[^.!?\n]{0,60}?\b(?:messages?|texts?|sms|msgs?|alerts?|notifications?)\b/i;
const STOP_WORD = /\bSTOP\b/i;

/** What each reply must tell the texter, as carriers require, and the refusal when it does not. */
const REQUIRED: Record<KeywordReplyKind, { test: (text: string) => boolean; says: string }> = {
  optOut: {
    test: (t) => NO_MORE_MESSAGES.test(t),
    says: 'must say that no more messages will be sent (e.g. “You will receive no further messages.”)',
  },
  optIn: {
    test: (t) => STOP_WORD.test(t),
    says: 'must say how to opt out again (e.g. “Reply STOP to unsubscribe.”)',
  },
  help: {
    test: (t) => STOP_WORD.test(t),
    says: 'must say how to opt out (e.g. “Reply STOP to unsubscribe.”)',
  },
};

/** Each reply named in words, with its field in the account's API body. */
export const REPLY_FIELDS: Record<KeywordReplyKind, string> = {
  optOut: 'The reply to STOP (keywordReplies.optOut)',
  optIn: 'The reply to START (keywordReplies.optIn)',
  help: 'The reply to HELP (keywordReplies.help)',
};

/**
 * A reply as it will be stored: trimmed, not empty, at most MAX_TEXT_LENGTH characters, saying
 * what carriers require (REQUIRED), with no merge field but REPLY_MERGE_FIELDS (VAL-001 naming the
 * field). `null` (back to the default) stays null.
 */
export function checkKeywordReply(kind: KeywordReplyKind, value: string | null): string | null {
  if (value === null) return null;
  const field = REPLY_FIELDS[kind];
  const text = value.trim();
  if (text === '')
    fail('VAL-001', `${field} must not be empty: send null to go back to the default wording.`);
  if (text.length > MAX_TEXT_LENGTH)
    fail('VAL-001', `${field} has at most ${MAX_TEXT_LENGTH} characters (it has ${text.length}).`);
  for (const part of parseTemplate(text)) {
    if (part.kind === 'text') {
      if (part.text.includes('{{{'))
        fail('VAL-001', `${field} has an unclosed merge field ({{{ without }}}).`);
      continue;
    }
    const name = part.kind === 'field' ? part.field : part.name;
    if (!REPLY_MERGE_FIELDS.includes(name))
      fail(
        'VAL-001',
        `${field} uses the merge field {{{${name.slice(0, 40)}}}}, which a keyword reply cannot fill: ` +
          `use only ${REPLY_MERGE_FIELDS.map((f) => `{{{${f}}}}`).join(', ')}.`,
      );
  }
  const rule = REQUIRED[kind];
  if (!rule.test(text)) fail('VAL-001', `${field} ${rule.says}.`);
  return text;
}
