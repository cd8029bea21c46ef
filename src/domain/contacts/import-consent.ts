/**
 * Consent recorded by a contact import: checked once when the import starts (importConsent), then
 * applied to each row as the worker writes it (consentCells). A row that agreed gets the consent as
 * a lead form records it (consent-record.ts: the attributes consentText,
 * consentSource and consentAt), and its opt-in time when the row gives none.
 */
import type { ImportConsent } from '../../db/queries/contact-imports.ts';
import { AppError, fail } from '../../errors.ts';
import { consentRecord } from './consent-record.ts';
import { coreColumn } from './contact-rows.ts';

/** The longest statement of consent an import takes (a query parameter). */
export const MAX_IMPORT_CONSENT_TEXT = 1000;
/** The longest "by …" of a statement. */
export const MAX_IMPORT_CONSENT_METHOD = 200;

/** The consent options of POST …/contacts/imports, as given. */
export interface ImportConsentOptions {
  consentColumn?: string;
  consentAtColumn?: string;
  consentText?: string;
  consentDate?: string;
  consentMethod?: string;
}

const norm = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** The header column a name stands for (ignoring case, spaces, dashes and underscores). */
function headerColumn(header: string[], name: string, param: string): string {
  const found = header.find((h) => norm(h) === norm(name));
  if (found === undefined)
    fail(
      'VAL-001',
      `\`${param}\`: the file has no column ${JSON.stringify(name.slice(0, 100))} (its columns: ${header
        .slice(0, 20)
        .join(', ')
        .slice(0, 300)}).`,
    );
  if (coreColumn(found))
    fail(
      'VAL-001',
      `\`${param}\`: the column ${JSON.stringify(found)} is a contact field, not a consent column.`,
    );
  return found;
}

function text(value: string | undefined, param: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  const t = value.trim();
  if (t === '') fail('VAL-001', `\`${param}\` must not be empty.`);
  if (t.length > max) fail('VAL-001', `\`${param}\` has at most ${max} characters.`);
  if (CONTROL.test(t)) fail('VAL-001', `\`${param}\` must not hold control characters.`);
  return t;
}

/** A date or date-time as given in a consent: not before 1970, not in the future (a day's leeway). */
function consentTime(value: string, now: Date): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/i.test(value.trim())) return undefined;
  const at = new Date(value.trim().replace(' ', 'T'));
  if (Number.isNaN(at.getTime()) || at.getTime() < 0 || at.getTime() > now.getTime() + 86_400_000)
    return undefined;
  return at;
}

/**
 * How an import records consent, checked against its header (400 VAL-001 saying what is wrong);
 * null when none of the options is given.
 */
export function importConsent(
  header: string[],
  o: ImportConsentOptions,
  now = new Date(),
): ImportConsent | null {
  const given = Object.values(o).some((v) => v !== undefined);
  if (!given) return null;
  const statement = text(o.consentText, 'consentText', MAX_IMPORT_CONSENT_TEXT);
  if (o.consentColumn !== undefined) {
    if (o.consentDate !== undefined || o.consentMethod !== undefined)
      fail(
        'VAL-001',
        'Give either a consent column (`consentColumn`, optionally `consentAtColumn`) or a statement for the ' +
          'whole file (`consentText`, `consentDate`, `consentMethod`), not both.',
      );
    const column = headerColumn(header, o.consentColumn, 'consentColumn');
    const atColumn =
      o.consentAtColumn === undefined
        ? undefined
        : headerColumn(header, o.consentAtColumn, 'consentAtColumn');
    if (atColumn === column)
      fail('VAL-001', '`consentAtColumn` must be another column than `consentColumn`.');
    return {
      column,
      ...(atColumn ? { atColumn } : {}),
      text: statement ?? `Agreed to receive texts (column “${column}” of the imported file).`,
    };
  }
  if (o.consentAtColumn !== undefined) fail('VAL-001', '`consentAtColumn` needs a `consentColumn`.');
  if (!statement || o.consentDate === undefined || o.consentMethod === undefined)
    fail(
      'VAL-001',
      'A statement for the whole file needs `consentText` (what they agreed to), `consentDate` (when) and ' +
        '`consentMethod` (how, e.g. “the paper sign-up sheet at our shop”).',
    );
  const at = consentTime(o.consentDate, now);
  if (!at) fail('VAL-001', '`consentDate` must be a date (2026-05-01) or date-time, not in the future.');
  const method = text(o.consentMethod, 'consentMethod', MAX_IMPORT_CONSENT_METHOD) as string;
  return { text: statement, at: at.toISOString(), method };
}

const YES = new Set(['yes', 'y', 'true', '1', 'x', 'agreed', 'opted in', 'optin', 'opt-in']);
const NO = new Set(['', 'no', 'n', 'false', '0', 'none']);

/** Where an import's consent was given: the import, by its file name and id (and how, for a statement). */
export function importConsentSource(
  imp: { id: string; file_name: string | null },
  consent: ImportConsent,
): string {
  const file = imp.file_name ? ` “${imp.file_name}”` : '';
  return `Contact import${file} (${imp.id})${consent.method ? `, by ${consent.method}` : ''}`;
}

/**
 * A row's cells with its consent applied: the consent columns taken out, and for a row that agreed
 * the consent attributes and (when the row has none) its opt-in time put in. A value the consent
 * column cannot mean (neither yes nor no) or a time that cannot be read is the row's error (VAL-001).
 */
export function consentCells(
  input: Record<string, string>,
  consent: ImportConsent,
  source: string,
  importedAt: Date,
): Record<string, string> {
  const out: Record<string, string> = { ...input };
  let at: Date | undefined;
  if (consent.column !== undefined) {
    const answer = (out[consent.column] ?? '').trim().toLowerCase();
    const when = consent.atColumn ? (out[consent.atColumn] ?? '').trim() : '';
    delete out[consent.column];
    if (consent.atColumn) delete out[consent.atColumn];
    if (NO.has(answer)) return out;
    if (!YES.has(answer))
      throw new AppError(
        'VAL-001',
        `The consent column “${consent.column}” reads ${JSON.stringify(answer.slice(0, 40))}: write yes or no (or leave it empty).`,
      );
    at = when === '' ? importedAt : consentTime(when, importedAt);
    if (!at)
      throw new AppError(
        'VAL-001',
        `The consent time “${consent.atColumn}” reads ${JSON.stringify(when.slice(0, 40))}: write a date (2026-05-01) or date-time, not in the future.`,
      );
  } else {
    at = new Date(consent.at as string);
  }
  Object.assign(out, consentRecord(consent.text, source, at));
  const optIn = Object.entries(out).some(([c, v]) => coreColumn(c) === 'optIn' && v.trim() !== '');
  if (!optIn) out.optIn = at.toISOString();
  return out;
}
