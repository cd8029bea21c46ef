// Lead forms: hosted sign-up pages. List; create blank or from a template; activate / deactivate;
// the hosted URL and an embed snippet to copy; analytics per day; conversions.
import { api } from '../api.js';
import { barChart } from '../chart.js';
import { copyBox } from '../copy.js';
import { add, badge, field, h, isolate, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { listPager, listWithTemplates, nameFilter, templateCard, templateGallery } from '../gallery.js';
import { mergeButtons } from '../message-box.js';
import { go, link } from '../router.js';

/** The kinds of field a person picks from, in words (the API's types as values). */
const FIELD_KINDS = [
  ['text', 'Short text'],
  ['textarea', 'Long text'],
  ['email', 'E-mail'],
  ['tel', 'Phone number'],
  ['number', 'Number'],
  ['date', 'Date'],
  ['checkbox', 'Tick box'],
  ['select', 'Choice from a list'],
];

/** Labels people write that fill a contact's own fields (any other is a custom field). */
const KNOWN_NAMES = {
  mobile: 'mobile',
  'mobile number': 'mobile',
  phone: 'mobile',
  'first name': 'firstName',
  'last name': 'lastName',
  email: 'email',
  'e-mail': 'email',
};

/**
 * A field's name from its label: the contact's own field where the label names one ("First name"
 * → firstName), else the label's words joined ("Favourite colour" → favouriteColour).
 * @param {string} label
 */
export function fieldName(label) {
  const known = KNOWN_NAMES[label.trim().toLowerCase()];
  if (known) return known;
  const words = label
    .normalize('NFD')
    .replace(/[^A-Za-z0-9 ]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  const name = words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w[0].toUpperCase() + w.slice(1).toLowerCase()))
    .join('');
  return /^[A-Za-z]/.test(name) ? name.slice(0, 50) : `field${name}`.slice(0, 50);
}

/**
 * The form's fields as a form: one row per field (its label, kind, required, and the choices of a
 * choice field), added and removed with buttons. `read()` answers the API's fields; the mobile
 * number's row is always there and required.
 */
function fieldsEditor() {
  const rows = h('div', { class: 'form-fields' });
  const addRow = (label = '', type = 'text', required = false, fixed = false) => {
    const labelInput = h('input', {
      name: 'fieldLabel',
      value: label,
      'aria-label': 'Field label',
      required: true,
      maxlength: 200,
      readonly: fixed,
    });
    const kind = h(
      'select',
      { name: 'fieldType', 'aria-label': 'Kind of answer', disabled: fixed },
      FIELD_KINDS.map(([value, text]) => h('option', { value, selected: value === type }, text)),
    );
    const req = h('input', { type: 'checkbox', name: 'fieldRequired', checked: required, disabled: fixed });
    const options = h('input', {
      name: 'fieldOptions',
      'aria-label': 'Choices, separated by commas',
      placeholder: 'Choices: small, medium, large',
      hidden: type !== 'select',
    });
    kind.addEventListener('change', () => {
      options.hidden = kind.value !== 'select';
    });
    const row = h(
      'div',
      { class: 'form-field-row inline' },
      labelInput,
      kind,
      h('label', {}, req, ' Required'),
      options,
      fixed
        ? h('span', { class: 'muted' }, 'Always asked')
        : h('button', { type: 'button', class: 'link', onclick: () => row.remove() }, 'Remove'),
    );
    rows.append(row);
    return labelInput;
  };
  addRow('Mobile number', 'tel', true, true);
  addRow('First name', 'text', false);
  const el = h(
    'div',
    {},
    rows,
    h('button', { type: 'button', class: 'secondary', onclick: () => addRow().focus() }, 'Add a field'),
  );
  const read = () =>
    [...rows.querySelectorAll('.form-field-row')].map((row) => {
      const label = /** @type {HTMLInputElement} */ (row.querySelector('[name=fieldLabel]')).value.trim();
      const type = /** @type {HTMLSelectElement} */ (row.querySelector('[name=fieldType]')).value;
      /** @type {Record<string, unknown>} */
      const f = {
        name: fieldName(label),
        label,
        type,
        required: /** @type {HTMLInputElement} */ (row.querySelector('[name=fieldRequired]')).checked,
      };
      if (type === 'select')
        f.options = /** @type {HTMLInputElement} */ (row.querySelector('[name=fieldOptions]')).value
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
      return f;
    });
  return { el, read };
}

/** #/forms?name=&offset=&q=&toffset= */
export async function formsPage(view, { query }) {
  const [{ state, list: forms, templates }, lists] = await Promise.all([
    listWithTemplates(query, '/forms', '/forms/templates'),
    api('GET', '/lists', { query: { limit: 100 } }),
  ]);
  add(view, [
    h('h2', {}, 'Lead forms'),
    nameFilter('/forms', state),
    table(
      [
        ['Name', (f) => h('a', { href: link(`/forms/${encodeURIComponent(f.id)}`) }, h('bdi', {}, f.name))],
        ['Status', (f) => badge(f.active ? 'active' : 'disabled')],
        ['List', (f) => (f.list ? h('bdi', {}, f.list.name) : '—')],
        ['Impressions', (f) => String(f.impressions)],
        ['Conversions', (f) => String(f.conversions)],
        ['Created', (f) => when(f.created.at)],
      ],
      forms.data,
      'No lead forms yet.',
    ),
    listPager('/forms', state, forms.pagination),
    blankForm(lists.data.filter((l) => !l.filter)),
    templateGallery('/forms', state, templates, formTemplateCard, {
      testId: 'form-templates',
      label: 'Search form templates',
    }),
  ]);
}

async function create(body, button) {
  button.disabled = true;
  try {
    const res = await api('POST', '/forms', { json: body });
    showAfterNavigation('Lead form created (inactive: activate it to publish the page).');
    go(`/forms/${encodeURIComponent(res.data.id)}`);
  } catch (err) {
    showError(err);
    button.disabled = false;
  }
}

function blankForm(lists) {
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const fields = fieldsEditor();
  const list = h(
    'select',
    { name: 'listId' },
    h('option', { value: '' }, '—'),
    lists.map((l) => h('option', { value: l.id }, isolate(l.name))),
  );
  const confirmation = h('textarea', { name: 'confirmationMessage', rows: 2, maxlength: 1600 });
  const consentBox = h('input', { type: 'checkbox', name: 'askConsent', checked: true });
  const consent = h('textarea', { name: 'consentText', rows: 3, maxlength: 2000 });
  consent.value =
    'I agree to receive recurring marketing text messages at the number provided. Consent is not a condition of purchase. Msg & data rates may apply. Reply STOP to opt out, HELP for help.';
  const button = h('button', { type: 'submit' }, 'Create lead form');
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: (e) => {
        e.preventDefault();
        const body = { name: name.value.trim(), fields: fields.read() };
        if (consentBox.checked && consent.value.trim()) body.consentText = consent.value.trim();
        if (list.value) body.listId = list.value;
        if (confirmation.value.trim()) body.confirmationMessage = confirmation.value;
        create(body, button);
      },
    },
    h('h3', {}, 'New blank form'),
    field('Name', name),
    h('fieldset', {}, h('legend', {}, 'Fields'), fields.el),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Consent'),
      h('label', { class: 'check' }, consentBox, ' Ask for consent with a tick box (required to submit)'),
      field('Consent text', consent, 'Shown beside the tick box; kept with the contact’s opt-in'),
    ),
    field('List joined', list),
    field(
      'Confirmation text (optional)',
      confirmation,
      'Texted to the submitter; “Insert” below adds their name',
    ),
    mergeButtons(confirmation),
    h('div', { class: 'actions' }, button),
  );
}

/** @param {any} t */
function formTemplateCard(t) {
  return templateCard(
    t,
    `Name of the form made from ${isolate(t.name)}`,
    h('p', { class: 'muted' }, `${t.fields.length} field(s): ${t.fields.map((f) => f.label).join(', ')}`),
    (name, button) => create({ templateId: t.id, name }, button),
  );
}

/** A conversion's contact (its mobile is a plain string here), isolated. */
function who(c) {
  return isolate([c.firstName, c.lastName].filter(Boolean).join(' ') || c.mobile || c.email || c.id || '—');
}

/** #/forms/:id?coffset= */
export async function formPage(view, { params, query }) {
  const path = `/forms/${encodeURIComponent(params.id)}`;
  const coffset = Number(query.get('coffset') ?? 0);
  const [f, stats, conversions] = await Promise.all([
    api('GET', path).then((r) => r.data),
    api('GET', `${path}/analytics`).then((r) => r.data),
    api('GET', `${path}/conversions`, { query: { offset: coffset, limit: 20 } }),
  ]);
  const act = async (activate) => {
    try {
      await api('PUT', `${path}/${activate ? 'activate' : 'deactivate'}`);
      showAfterNavigation(
        activate ? 'Lead form activated: its page is live.' : 'Lead form deactivated: its page answers 404.',
      );
      go(`/forms/${encodeURIComponent(f.id)}`, { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the lead form “${isolate(f.name)}” with its conversions (the contacts stay)?`))
      return;
    try {
      await api('DELETE', path);
      showAfterNavigation('Lead form deleted.');
      go('/forms');
    } catch (err) {
      showError(err);
    }
  };
  // The snippet is text to paste into a site: its attribute values are escaped for that HTML.
  const attr = (v) => String(v).replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  const embed = `<iframe src="${attr(f.url)}" title="${attr(f.name)}" width="100%" height="640" style="border:0"></iframe>`;
  const rate = `${(stats.conversionRate * 100).toFixed(1)} %`;
  add(view, [
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, h('bdi', {}, f.name)),
      h('a', { class: 'button secondary', href: '#/forms' }, 'All lead forms'),
    ),
    h(
      'p',
      {},
      badge(f.active ? 'active' : 'disabled'),
      f.active ? ` since ${when(f.active)}` : ' · the hosted page answers 404 until the form is activated',
    ),
    h(
      'div',
      { class: 'actions' },
      f.active
        ? h('button', { type: 'button', class: 'secondary', onclick: () => act(false) }, 'Deactivate')
        : h('button', { type: 'button', onclick: () => act(true) }, 'Activate'),
      h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'),
    ),
    f.url ? copyBox('Hosted page URL', f.url) : null,
    f.url ? copyBox('Embed snippet', embed, { rows: 3 }) : null,
    h('h3', {}, 'Fields'),
    table(
      [
        ['Name', (x) => x.name],
        ['Label', (x) => h('bdi', {}, x.label)],
        ['Type', (x) => x.type],
        ['Required', (x) => (x.required ? 'yes' : 'no')],
      ],
      f.fields,
    ),
    h('h3', {}, 'Analytics'),
    h(
      'dl',
      { class: 'details', 'data-test': 'form-analytics' },
      h('dt', {}, 'Impressions'),
      h('dd', {}, String(stats.impressions)),
      h('dt', {}, 'Conversions'),
      h('dd', {}, String(stats.conversions)),
      h('dt', {}, 'Conversion rate'),
      h('dd', {}, rate),
      h('dt', {}, 'Period'),
      h('dd', {}, `${stats.start} – ${stats.end}`),
    ),
    barChart(
      stats.days.map((d) => ({ ...d, day: d.date })),
      [
        ['impressions', 'Impressions'],
        ['conversions', 'Conversions'],
      ],
      'Impressions and conversions per day (UTC)',
    ),
    h('h3', {}, 'Conversions'),
    table(
      [
        ['Submitted', (c) => when(c.submitted)],
        [
          'Contact',
          (c) =>
            c.contact.id
              ? h('a', { href: link(`/contacts/${encodeURIComponent(c.contact.id)}`) }, who(c.contact))
              : who(c.contact),
        ],
        ['Mobile', (c) => c.contact.mobile ?? '—'],
        ['Page', (c) => (c.pageUrl ? h('bdi', {}, c.pageUrl) : '—')],
        [
          'Confirmation',
          (c) =>
            c.confirmation.messageId
              ? h('a', { href: link(`/messages/${encodeURIComponent(c.confirmation.messageId)}`) }, 'queued')
              : c.confirmation.error
                ? `${c.confirmation.error.description} (${c.confirmation.error.code})`
                : '—',
        ],
      ],
      conversions.data,
      'No conversions yet.',
    ),
    pager(conversions.pagination, (o) => go(`/forms/${encodeURIComponent(f.id)}`, { coffset: o })),
  ]);
}
