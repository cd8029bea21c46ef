import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** A mobile number parsed with libphonenumber's full metadata. */
export interface ParsedMobile {
  /** E.164, e.g. +12015550123. */
  number: string;
  /** ISO 3166-1 alpha-2 region of the number ('ZZ' for non-geographic numbers). */
  country: string;
  valid: boolean;
  /** lower camel case: mobile, landline, fixedOrMobile, voip, tollFree, personal, ... or unknown. */
  lineType: string;
}

const LINE_TYPES: Record<string, string> = {
  MOBILE: 'mobile',
  FIXED_LINE: 'landline',
  FIXED_LINE_OR_MOBILE: 'fixedOrMobile',
  VOIP: 'voip',
  TOLL_FREE: 'tollFree',
  PERSONAL_NUMBER: 'personal',
  PREMIUM_RATE: 'premiumRate',
  SHARED_COST: 'sharedCost',
  PAGER: 'pager',
  UAN: 'uan',
  VOICEMAIL: 'voicemail',
};

/** The country national numbers are read in when neither the request nor the account names one. */
export const FALLBACK_COUNTRY = 'US';

/**
 * The one rule for the country a national number (one written without `+`, e.g. "302-624-2325")
 * is read in, on every path that takes a number from a client (a send's recipients, a contact's
 * mobile, a CSV row): the country given with the number, else the account's (its sending number's:
 * an account stores no country of its own, so the first number of its default group, or of the
 * send's group, stands for it), else US. An international number (`+…`) ignores it.
 */
export function readingCountry(given?: string | null, account?: string | null): string {
  const named = given?.trim();
  if (named) return named.toUpperCase();
  return account?.trim().toUpperCase() || FALLBACK_COUNTRY;
}

/**
 * Parses a phone number: E.164 (or any international form with +), or a national number read in
 * defaultCountry (ISO alpha-2). Answers undefined when it cannot be parsed or is not a valid number.
 */
export function parseMobile(input: string, defaultCountry?: string): ParsedMobile | undefined {
  if (typeof input !== 'string') return undefined;
  const text = input.trim();
  if (text === '' || text.length > 64) return undefined;
  const country = defaultCountry?.trim().toUpperCase();
  let parsed: ReturnType<typeof parsePhoneNumberFromString>;
  try {
    parsed = parsePhoneNumberFromString(
      text,
      country ? { defaultCountry: country as CountryCode } : undefined,
    );
  } catch {
    return undefined;
  }
  if (!parsed) return undefined;
  // With types in the metadata (the max set has them), isValid() is getType() !== undefined: the
  // type is worked out once (each run tests every type pattern; for +1 numbers the country was
  // already found the same way), and isValid() is asked only where no type was found.
  const type = parsed.getType();
  if (type === undefined && !parsed.isValid()) return undefined;
  return {
    number: parsed.number,
    country: parsed.country ?? 'ZZ',
    valid: true,
    lineType: (type && LINE_TYPES[type]) ?? 'unknown',
  };
}
