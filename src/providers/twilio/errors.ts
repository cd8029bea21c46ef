import type { ProviderError } from '../types.ts';

/**
 * Twilio error codes we name, with our text, whether a later attempt can succeed, and whether
 * another provider may take the message (`otherProvider`: the account cannot send from this sender).
 */
const KNOWN: Record<string, { description: string; retryable: boolean; otherProvider?: true }> = {
  '21606': {
    description: 'The From number is not a message-capable number of this account',
    retryable: false,
    otherProvider: true,
  },
  '21660': {
    description: 'The From number does not belong to this account',
    retryable: false,
    otherProvider: true,
  },
  '21661': { description: 'The From number is not SMS-capable', retryable: false, otherProvider: true },
  '21211': { description: 'Invalid To number', retryable: false },
  '21612': {
    description: 'Unroutable: the To number cannot be reached from this From number',
    retryable: false,
  },
  '21614': { description: 'To number is not SMS-capable', retryable: false },
  '21610': { description: 'The recipient has opted out (replied STOP)', retryable: false },
  '30003': { description: 'Unreachable destination handset', retryable: true },
  '30006': { description: 'Landline or unreachable carrier', retryable: true },
  '20429': { description: 'Too many requests', retryable: true },
  '21624': { description: 'Invalid validity period value', retryable: false },
  '30036': { description: 'Validity period expired before the message could be sent', retryable: false },
};

/** Maps a Twilio error (code, message, HTTP status) to our error shape and retryability. */
export function mapTwilioError(
  code: string | number | null | undefined,
  message: string | undefined,
  httpStatus: number,
): { error: ProviderError; retryable: boolean; otherProvider?: boolean } {
  const key = code === null || code === undefined || code === '' ? '' : String(code);
  const known = KNOWN[key];
  if (known) {
    const error = { code: key, description: known.description };
    return known.otherProvider
      ? { error, retryable: known.retryable, otherProvider: true }
      : { error, retryable: known.retryable };
  }
  const retryable = httpStatus >= 500 || httpStatus === 429;
  return {
    error: {
      code: key || `HTTP-${httpStatus}`,
      description: message || `Twilio answered HTTP ${httpStatus}`,
    },
    retryable,
  };
}
