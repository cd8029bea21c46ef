/**
 * What a message's text may be, for every kind of send (direct and campaign sends, templates,
 * drips, workflow actions, form and list confirmations, replies): at most MAX_TEXT_LENGTH
 * characters (Unicode code points, as JSON Schema's maxLength counts them), and not empty unless
 * it carries media. Defined here once; the bulk send applies the same rule in SQL (textErrorSql).
 */

/** The cap on a message's text: ten concatenated segments, the industry's usual limit. */
export const MAX_TEXT_LENGTH = 1600;

/** The error recorded on a message that is not sent for its text (a failed, uncharged message). */
export interface TextError {
  code: 'MSG-004' | 'MSG-005';
  description: string;
}

export const EMPTY_TEXT_ERROR: TextError = {
  code: 'MSG-004',
  description: 'The message renders empty and has no media: not sent.',
};
export const LONG_TEXT_ERROR: TextError = {
  code: 'MSG-005',
  description: `The message text is longer than ${MAX_TEXT_LENGTH.toLocaleString('en')} characters.`,
};

/** Whether a text has nothing to show: no character but ASCII white space (the SQL mirror matches it exactly). */
export function isBlank(text: string): boolean {
  return !/[^ \t\n\r\f\v]/.test(text);
}

/** The error of a rendered text that must not be sent, or null when it may be. */
export function textError(text: string, hasMedia: boolean): TextError | null {
  if (!hasMedia && isBlank(text)) return EMPTY_TEXT_ERROR;
  if ([...text].length > MAX_TEXT_LENGTH) return LONG_TEXT_ERROR;
  return null;
}

/**
 * textError in SQL, over a text expression: a jsonb error or NULL. `hasMedia` is a SQL boolean
 * expression; `add` adds the two error objects as parameters and answers their placeholders.
 */
export function textErrorSql(body: string, hasMedia: string, add: (v: unknown) => string): string {
  return `CASE WHEN NOT ${hasMedia} AND ${body} !~ '[^ \\t\\n\\r\\f\\v]' THEN ${add(JSON.stringify(EMPTY_TEXT_ERROR))}::jsonb
               WHEN char_length(${body}) > ${MAX_TEXT_LENGTH} THEN ${add(JSON.stringify(LONG_TEXT_ERROR))}::jsonb END`;
}
