/**
 * SMS compliance keywords (CTIA / carrier practice): a message that is exactly one of these words
 * opts the sender out, back in, or asks for help.
 *
 * Matching rules (decided here, relied on by the inbound path):
 * - the whole message must be the keyword: "STOP PLEASE" or "please stop" is an ordinary message;
 * - case does not matter, and neither do surrounding whitespace or surrounding punctuation
 *   ("Stop.", "STOP!", "'stop'", "¡stop!"), because a person who writes "Stop." means it and the
 *   safe reading of an opt-out request is the one that honours it;
 * - full-width and other compatibility forms are folded (NFKC), so "ＳＴＯＰ" counts too;
 * - punctuation inside the word is not stripped ("ST.OP" is ordinary).
 */

/** What a keyword asks for. */
export type KeywordAction = 'opt-out' | 'opt-in' | 'help';

/** The keywords, by what they ask for. */
export const KEYWORDS: Record<KeywordAction, readonly string[]> = {
  'opt-out': ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'],
  'opt-in': ['START', 'YES', 'UNSTOP'],
  help: ['HELP', 'INFO'],
};

const BY_WORD = new Map<string, KeywordAction>(
  (Object.entries(KEYWORDS) as [KeywordAction, readonly string[]][]).flatMap(([action, words]) =>
    words.map((w) => [w, action] as [string, KeywordAction]),
  ),
);

// Leading and trailing runs of whitespace, punctuation and symbols (emoji included).
const EDGES = /^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu;

/** The keyword a message text consists of, normalised (upper case, no surrounding marks), if any. */
export function keywordOf(text: string): string | undefined {
  const word = text.normalize('NFKC').replace(EDGES, '').toUpperCase();
  return BY_WORD.has(word) ? word : undefined;
}

/** Classifies an inbound text: opt-out, opt-in, help, or undefined for an ordinary message. */
export function classifyKeyword(text: string): KeywordAction | undefined {
  const word = keywordOf(text);
  return word ? BY_WORD.get(word) : undefined;
}
