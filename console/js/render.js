// Merge fields, as the server reads them (src/messaging/render.ts): {{{firstName}}},
// {{{contact.firstName}}}, any contact field, any custom attribute by name or as attributes.<name>;
// a missing value renders empty. Used for the compose preview only: the server renders the sent text.

const MERGE_FIELD = /\{\{\{\s*([^{}]*?)\s*\}\}\}/g;
const FIELDS = new Set(['id', 'firstName', 'lastName', 'email', 'mobile', 'country']);

/** Merge fields a person can insert with one click. */
export const COMMON_FIELDS = ['firstName', 'lastName', 'email', 'mobile'];

function fieldValue(name, contact) {
  const bare = name.startsWith('contact.') ? name.slice('contact.'.length) : name;
  if (bare.startsWith('attributes.'))
    return attributeText(contact.attributes?.[bare.slice('attributes.'.length)]);
  if (FIELDS.has(bare)) {
    if (bare === 'mobile') return contact.mobile?.number ?? '';
    if (bare === 'country') return contact.mobile?.country ?? '';
    return contact[bare] ?? '';
  }
  return attributeText(contact.attributes?.[bare]);
}

function attributeText(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Renders a template for one contact (the API's Contact shape). */
export function renderTemplate(template, contact) {
  return template.replace(MERGE_FIELD, (_all, name) => fieldValue(name, contact));
}

/** Whether the text uses any merge field. */
export function hasMergeFields(template) {
  return new RegExp(MERGE_FIELD.source).test(template);
}
