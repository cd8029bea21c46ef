// Merge fields, as the server reads them (src/messaging/render.ts): {{{firstName}}},
// {{{contact.firstName}}}, any contact field, any custom attribute by name or as attributes.<name>;
// a missing value renders empty. Used for the compose preview only: the server renders the sent text.
// A copy of the server's scanner (nextField in src/messaging/render.ts): the console is served as
// plain browser modules with no build step, so it cannot import the TypeScript one.
// test/console/render.test.ts checks that both parse alike.

/**
 * The next merge field at or after `from`: `{{{`, characters other than braces, `}}}`. Linear in
 * the text (the pattern /\{\{\{\s*([^{}]*?)\s*\}\}\}/g it replaces backtracked cubically).
 */
function nextField(template, from) {
  let start = template.indexOf('{{{', from);
  while (start !== -1) {
    let i = start + 3;
    while (i < template.length && template[i] !== '{' && template[i] !== '}') i++;
    if (template.startsWith('}}}', i)) return { at: start, end: i + 3, name: template.slice(start + 3, i).trim() };
    start = template.indexOf('{{{', i === start + 3 ? start + 1 : i);
  }
  return undefined;
}

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
  let out = '';
  let last = 0;
  for (let f = nextField(template, 0); f; f = nextField(template, f.end)) {
    out += template.slice(last, f.at) + fieldValue(f.name, contact);
    last = f.end;
  }
  return out + template.slice(last);
}

/** Whether the text uses any merge field. */
export function hasMergeFields(template) {
  return nextField(template, 0) !== undefined;
}
