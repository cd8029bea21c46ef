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

/*
 * Autoresponder keywords (docs/autoresponders.md) are matched with the same folding as the
 * compliance keywords (NFKC, any case, surrounding punctuation ignored), but as whole words
 * anywhere in the text: "What are your Hours?" contains HOURS, "shoursx" does not. A word is a run
 * of letters, digits and combining marks (any script, right-to-left ones included); format
 * characters (RLM, ZWJ, bidi overrides) are invisible and dropped before anything else.
 */

const FORMAT = /\p{Cf}/gu;
const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/u;
const PHRASE = /^[\p{L}\p{N}\p{M}]+(?: [\p{L}\p{N}\p{M}]+)*$/u;

function fold(text: string): string {
  return text.normalize('NFKC').replace(FORMAT, '').toUpperCase();
}

/** The words of a text as autoresponder keywords see them: folded, split at anything not a letter, digit or mark. */
export function wordsOf(text: string): string[] {
  return fold(text).split(NOT_WORD).filter(Boolean);
}

/**
 * An autoresponder keyword as matched (its folded words joined by one space), or why it cannot be
 * one: surrounding punctuation and whitespace are dropped ("Hours?" is HOURS), runs of whitespace
 * between words become one space, and what is left must be letters, digits and marks only
 * (punctuation inside, as in "ST.OP" or "don't", could never match a word of a text). A compliance
 * keyword (STOP, HELP…) is refused: it always wins, so the autoresponder could never answer it.
 */
export function matchKeyOf(keyword: string): { key: string } | { error: string } {
  const key = fold(keyword).replace(EDGES, '').replace(/\s+/gu, ' ');
  if (key === '') return { error: `The keyword "${keyword}" has no letters or digits.` };
  if (!PHRASE.test(key)) {
    return {
      error: `The keyword "${keyword}" may hold only letters, digits and spaces between words (no punctuation inside).`,
    };
  }
  if (BY_WORD.has(key)) {
    return {
      error: `"${keyword}" is a compliance keyword (STOP, START, HELP…): those are always answered by opt-out handling.`,
    };
  }
  return { key };
}

/**
 * A test of one text against lists of keys (from matchKeyOf), the text read once: true when the
 * text contains one of the keys as whole words (a one-word key equal to a word of the text, a
 * phrase as consecutive words). A phrase is searched for only when its first word occurs.
 */
export function keywordMatcher(text: string): (keys: readonly string[]) => boolean {
  const words = wordsOf(text);
  const single = new Set(words);
  let joined: string | undefined;
  return (keys) =>
    keys.some((k) => {
      const space = k.indexOf(' ');
      if (space < 0) return single.has(k);
      if (!single.has(k.slice(0, space))) return false;
      joined ??= ` ${words.join(' ')} `;
      return joined.includes(` ${k} `);
    });
}
