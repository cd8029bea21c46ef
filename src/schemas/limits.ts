/**
 * The limits the API publishes (its schemas declare them, the domain enforces them): one definition
 * each, imported by schemas, domain and SQL alike.
 */

/** Custom attributes one contact may have. */
export const MAX_ATTRIBUTES = 100;

/** Bytes of all of a contact's attributes: the UTF-8 bytes of each name plus its value's text. */
export const MAX_ATTRIBUTE_BYTES = 32 * 1024;

/** Characters of an attribute's name. */
export const MAX_ATTRIBUTE_KEY_LENGTH = 128;

/**
 * Characters of an attribute's value (a string's own characters; any other value's text as a merge
 * field renders it, PostgreSQL's jsonb text): the longest hosted-form field (a textarea) fits.
 */
export const MAX_ATTRIBUTE_VALUE_LENGTH = 5000;

/** Columns of a CSV upload (every column that is not a contact field becomes an attribute). */
export const MAX_CSV_COLUMNS = 128;

/** Characters of one CSV row (all its cells): bounds what one row can make the parser hold. */
export const MAX_CSV_RECORD_CHARS = 64 * 1024;

/** Values of one condition (`=` any of them, `!=` none of them; the others use the first). */
export const MAX_CONDITION_VALUES = 1_000;

/** Values of all the attribute conditions of one filter together. */
export const MAX_FILTER_VALUES = 5_000;

/** Attribute conditions of one filter. */
export const MAX_FILTER_CONDITIONS = 50;

/**
 * CSV uploads up to 16 MiB (about 650,000 four-column contacts). Spooled to disk and parsed as a
 * stream, so memory does not grow with the size; the limit bounds the upload's one transaction.
 */
export const CSV_BODY_LIMIT = 16 * 1024 * 1024;

/** Failed rows an import keeps and answers (all are counted). */
export const IMPORT_ERRORS_KEPT = 100;

/** Most keywords one autoresponder may carry (the request schema says so too). */
export const MAX_KEYWORDS = 50;

/**
 * The largest daily cap of a number or sender group (`dailyCap`): carriers' daily limits are in the
 * thousands to hundreds of thousands; ten million a day is 116 messages a second all day long.
 */
export const MAX_DAILY_CAP = 10_000_000;

/** The most contact ids one selector may name. */
export const MAX_SELECTOR_IDS = 10_000;
