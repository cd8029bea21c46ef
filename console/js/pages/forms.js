// Lead forms: hosted sign-up pages. List; create blank or from a template; activate / deactivate;
// the hosted URL and an embed snippet to copy; analytics per day; conversions.
import { api } from '../api.js';
import { barChart } from '../chart.js';
import { copyBox } from '../copy.js';
import { add, badge, field, h, isolate, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { listPager, listWithTemplates, nameFilter, templateCard, templateGallery } from '../gallery.js';
import { go, link } from '../router.js';

const DEFAULT_FIELDS = 'mobile | Mobile number | tel | required\nfirstName | First name | text';

/** "name | Label | type | required" per line → the API's fields. */
function parseFields(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [name, label, type, required, options] = line.split('|').map((p) => p.trim());
      const f = {
        name,
        label: label || name,
        type: type || 'text',
        required: /^(required|yes|true)$/i.test(required ?? ''),
      };
      if (options)
        f.options = options
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
      return f;
    });
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
  const fields = h('textarea', { name: 'fields', rows: 4 });
  fields.value = DEFAULT_FIELDS;
  const list = h(
    'select',
    { name: 'listId' },
    h('option', { value: '' }, '—'),
    lists.map((l) => h('option', { value: l.id }, isolate(l.name))),
  );
  const confirmation = h('textarea', { name: 'confirmationMessage', rows: 2, maxlength: 1600 });
  const button = h('button', { type: 'submit' }, 'Create lead form');
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: (e) => {
        e.preventDefault();
        const body = { name: name.value.trim(), fields: parseFields(fields.value) };
        if (list.value) body.listId = list.value;
        if (confirmation.value.trim()) body.confirmationMessage = confirmation.value;
        create(body, button);
      },
    },
    h('h3', {}, 'New blank form'),
    field('Name', name),
    field(
      'Fields',
      fields,
      'One per line: name | label | type | required | options (for select, comma-separated). Types: text, textarea, email, tel, number, date, checkbox, select',
    ),
    field('List joined', list),
    field(
      'Confirmation text (optional)',
      confirmation,
      'Texted to the submitter; merge fields like {{{firstName}}}',
    ),
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
