/**
 * Merge fields: `{{{firstName}}}`, `{{{contact.firstName}}}`, any contact field, any custom
 * attribute by name (`{{{plan}}}`, `{{{attributes.plan}}}`, `{{{contact.attributes.plan}}}`).
 * Whitespace inside the braces is tolerated; a missing value renders empty; nothing is escaped.
 * The bulk send path compiles the same parts to a SQL expression (db/queries/messages.ts), so
 * this parser is the one definition of the syntax.
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

const MERGE_FIELD = /\{\{\{\s*([^{}]*?)\s*\}\}\}/g;
const FIELDS = new Set<string>(CONTACT_FIELDS);

function resolve(name: string): TemplatePart {
  const bare = name.startsWith('contact.') ? name.slice('contact.'.length) : name;
  if (bare.startsWith('attributes.')) return { kind: 'attribute', name: bare.slice('attributes.'.length) };
  if (FIELDS.has(bare)) return { kind: 'field', field: bare as ContactField };
  return { kind: 'attribute', name: bare };
}

/** Splits a template into literal text and merge fields. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of template.matchAll(MERGE_FIELD)) {
    const at = m.index ?? 0;
    if (at > last) parts.push({ kind: 'text', text: template.slice(last, at) });
    parts.push(resolve(m[1]));
    last = at + m[0].length;
  }
  if (last < template.length) parts.push({ kind: 'text', text: template.slice(last) });
  return parts;
}

/** Whether a template uses any merge field (when not, every recipient gets the same text). */
export function hasMergeFields(template: string): boolean {
  return parseTemplate(template).some((p) => p.kind !== 'text');
}

/** How an attribute value reads in a message: JSON text for objects, as PostgreSQL's `->>` gives it. */
function attributeText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
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
