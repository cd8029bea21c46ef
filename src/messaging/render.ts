/**
 * Merge fields: `{{{firstName}}}`, `{{{contact.firstName}}}`, any contact field, any custom
 * attribute by name (`{{{plan}}}`, `{{{attributes.plan}}}`, `{{{contact.attributes.plan}}}`).
 * Whitespace inside the braces is tolerated; a missing value renders empty; nothing is escaped.
 * The one definition: the server uses this module and the web console is served a browser build
 * of it (src/http/routes/console.ts). The bulk send path compiles the parsed parts to a SQL
 * expression (renderSql in db/queries/render-sql.ts); test/messaging/vectors.test.ts holds both,
 * and the console's build, to the shared vectors in test/messaging/vectors/render.json.
 */

/** Contact fields a merge field can name, besides custom attributes. */
export const CONTACT_FIELDS = ['id', 'firstName', 'lastName', 'email', 'mobile', 'country'] as const;

/** A contact field a merge field can name. */
export type ContactField = (typeof CONTACT_FIELDS)[number];

/** One piece of a parsed template. */
export type TemplatePart =
  | { kind: 'text'; text: string }
  | { kind: 'field'; field: ContactField }
  | { kind: 'attribute'; name: string };

/** The values a template is rendered with. */
export interface RenderContact {
  id?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  mobile?: string | null;
  country?: string | null;
  attributes?: Record<string, unknown> | null;
}

const FIELDS = new Set<string>(CONTACT_FIELDS);

function resolve(name: string): TemplatePart {
  const bare = name.startsWith('contact.') ? name.slice('contact.'.length) : name;
  if (bare.startsWith('attributes.')) return { kind: 'attribute', name: bare.slice('attributes.'.length) };
  if (FIELDS.has(bare)) return { kind: 'field', field: bare as ContactField };
  return { kind: 'attribute', name: bare };
}

/**
 * Finds the next merge field at or after `from`: `{{{`, then characters other than `{` and `}`,
 * then `}}}`; the name is what lies between, without surrounding whitespace. The same matches as
 * the pattern /\{\{\{\s*([^{}]*?)\s*\}\}\}/g, found in linear time: that pattern backtracks
 * cubically on `{{{` followed by a long run of spaces (8,000 spaces took about 200 s).
 */
function nextField(template: string, from: number): { at: number; end: number; name: string } | undefined {
  let start = template.indexOf('{{{', from);
  while (start !== -1) {
    let i = start + 3;
    while (i < template.length && template[i] !== '{' && template[i] !== '}') i++;
    if (template.startsWith('}}}', i))
      return { at: start, end: i + 3, name: template.slice(start + 3, i).trim() };
    // No field starts inside the brace-free run just scanned, so each character is scanned at most
    // twice: the search resumes right after `start` only when a brace follows the opening at once.
    start = template.indexOf('{{{', i === start + 3 ? start + 1 : i);
  }
  return undefined;
}

/** Splits a template into literal text and merge fields (linear in the template's length). */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (let f = nextField(template, 0); f; f = nextField(template, f.end)) {
    if (f.at > last) parts.push({ kind: 'text', text: template.slice(last, f.at) });
    parts.push(resolve(f.name));
    last = f.end;
  }
  if (last < template.length) parts.push({ kind: 'text', text: template.slice(last) });
  return parts;
}

/**
 * How an attribute value reads in a message: as PostgreSQL's `attributes ->> name` gives it, since
 * bulk sends render in SQL (renderSql in db/queries/render-sql.ts): a string as it is, a number in
 * plain decimal notation (`0.0000001`, never `1e-7`), `true`/`false`, an object or array as jsonb's
 * text (`{"a": 1, "b": [true, null]}`: keys shortest first, then by their UTF-8 bytes), null empty.
 */
export function attributeText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return jsonbText(value);
}

/** A JSON value as jsonb's text output writes it. */
function jsonbText(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? plainNumber(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(jsonbText).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => jsonbKeyOrder(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${jsonbText(v)}`).join(', ')}}`;
  }
  return 'null';
}

/** A number as PostgreSQL's numeric prints it: JavaScript's shortest digits, never an exponent. */
function plainNumber(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const digits = m[2] + (m[3] ?? '');
  const exp = Number(m[4]);
  return exp >= 0 ? m[1] + digits.padEnd(exp + 1, '0') : `${m[1]}0.${'0'.repeat(-exp - 1)}${digits}`;
}

const UTF8 = new TextEncoder();

/** jsonb's key order: shorter keys (in UTF-8 bytes) first, then bytewise. */
function jsonbKeyOrder(a: string, b: string): number {
  const x = UTF8.encode(a);
  const y = UTF8.encode(b);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}

/** Renders a template for one contact. */
export function renderTemplate(template: string, contact: RenderContact): string {
  let out = '';
  for (const part of parseTemplate(template)) {
    if (part.kind === 'text') out += part.text;
    else if (part.kind === 'field') out += contact[part.field] ?? '';
    else out += attributeText(contact.attributes?.[part.name]);
  }
  return out;
}
