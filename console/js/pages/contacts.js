// Contacts: search and page through them, create, edit, delete, and import a CSV file (contacts-import.js).
import { api } from '../api.js';
import { field, filterForm, h, nameOf, pager, table, when } from '../dom.js';
import { exportButton } from '../download.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { go, link } from '../router.js';
import { bulkPanel, selectCell } from './contacts-bulk.js';
import { importForm } from './contacts-import.js';

/** #/contacts?q=&offset= */
export async function contactsPage(view, { query }) {
  const q = query.get('q') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const search = h('input', { type: 'search', name: 'q', value: q, placeholder: 'Name, email or mobile' });
  view.append(
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, 'Contacts'),
      h(
        'div',
        { class: 'actions' },
        // The export holds what the list shows: the contacts the search matches.
        exportButton(q ? 'Export matches (CSV)' : 'Export CSV', '/contacts/export', () => ({ q })),
        h('a', { class: 'button', href: '#/contacts/new' }, 'New contact'),
      ),
    ),
    filterForm(search, () => go('/contacts', { q: search.value.trim() }), 'Search', { role: 'search' }),
  );
  const rows = h('div', {});
  // The list alone is drawn again when an import ends (the form and its result stay in view).
  const load = async () => {
    const res = await api('GET', '/contacts', { query: { q, offset, limit: 20 } });
    rows.replaceChildren(
      table(
        [
          ['', selectCell],
          ['Name', (c) => h('a', { href: `#/contacts/${encodeURIComponent(c.id)}` }, nameOf(c))],
          ['Mobile', (c) => c.mobile?.number ?? '—'],
          ['Email', (c) => c.email ?? ''],
          ['Tags', (c) => c.tags.map((t) => h('span', { class: 'tag' }, t.tag))],
          [
            'State',
            (c) =>
              [c.optOut ? 'opted out' : null, c.blocked ? 'blocked' : null, c.valid ? null : 'invalid']
                .filter(Boolean)
                .join(', ') || 'ok',
          ],
          ['Created', (c) => when(c.created.at)],
        ],
        res.data,
        q ? 'No contact matches.' : 'No contacts yet.',
      ),
      pager(res.pagination, (o) => go('/contacts', { q, offset: o })),
    );
  };
  await load();
  view.append(rows, bulkPanel(rows, q), importForm(load));
}

/** #/contacts/new and #/contacts/:id */
export async function contactPage(view, { params }) {
  const isNew = params.id === 'new';
  const contact = isNew ? null : (await api('GET', `/contacts/${encodeURIComponent(params.id)}`)).data;
  const inputs = {
    firstName: h('input', { name: 'firstName', value: contact?.firstName ?? '' }),
    lastName: h('input', { name: 'lastName', value: contact?.lastName ?? '' }),
    mobile: h('input', {
      name: 'mobile',
      value: contact?.mobile?.number ?? '',
      placeholder: '+14155550123',
      required: isNew,
    }),
    email: h('input', { name: 'email', type: 'email', value: contact?.email ?? '' }),
    tags: h('input', {
      name: 'tags',
      value: contact ? contact.tags.map((t) => t.tag).join(', ') : '',
      placeholder: 'vip, newsletter',
    }),
    attributes: fieldEditor(contact?.attributes ?? {}),
  };
  const form = h(
    'form',
    {
      class: 'panel',
      onsubmit: (e) => {
        e.preventDefault();
        save(contact, inputs);
      },
    },
    field('First name', inputs.firstName),
    field('Last name', inputs.lastName),
    field('Mobile', inputs.mobile, 'E.164, e.g. +14155550123'),
    field('Email', inputs.email),
    field('Tags', inputs.tags, 'Separated by commas'),
    h('fieldset', { class: 'custom-fields' }, h('legend', {}, 'Custom fields'), inputs.attributes.el),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, isNew ? 'Create contact' : 'Save')),
  );
  view.append(h('h2', {}, isNew ? 'New contact' : nameOf(contact)), form);
  if (!contact) return;
  view.append(
    h(
      'div',
      { class: 'actions' },
      h('a', { class: 'button', href: link('/compose', { contact: contact.id }) }, 'Send a message'),
      h('a', { class: 'button secondary', href: link('/messages', { contactId: contact.id }) }, 'Messages'),
      h('button', { type: 'button', class: 'danger', onclick: () => remove(contact) }, 'Delete contact'),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Id'),
      h('dd', {}, contact.id),
      h('dt', {}, 'Mobile'),
      h(
        'dd',
        {},
        contact.mobile
          ? `${contact.mobile.number} (${contact.mobile.country ?? '?'}, ${contact.mobile.lineType ?? 'unknown'}${contact.mobile.valid ? '' : ', invalid'})`
          : '—',
      ),
      h('dt', {}, 'Opted in'),
      h('dd', {}, when(contact.optIn)),
      // Consent as a lead form or an import recorded it (the contact's consent fields).
      ...(contact.attributes?.consentAt
        ? [
            h('dt', {}, 'Consent'),
            h(
              'dd',
              { 'data-test': 'consent' },
              `${when(contact.attributes.consentAt)} · ${contact.attributes.consentSource ?? ''}`,
              h('br'),
              h('q', {}, String(contact.attributes.consentText ?? '')),
            ),
          ]
        : []),
      h('dt', {}, 'Opted out'),
      h('dd', {}, when(contact.optOut)),
      h('dt', {}, 'Blocked'),
      h('dd', {}, when(contact.blocked)),
      h('dt', {}, 'Lists'),
      h(
        'dd',
        {},
        contact.lists.map((l) =>
          h('a', { class: 'tag', href: `#/lists/${encodeURIComponent(l.id)}` }, l.name),
        ),
      ),
      // The CRM records the contact is synced with (docs/integrations.md).
      ...['hubspot', 'pipedrive', 'activecampaign']
        .filter((crm) => contact[crm]?.id !== undefined)
        .flatMap((crm) => [
          h(
            'dt',
            {},
            { hubspot: 'HubSpot id', pipedrive: 'Pipedrive id', activecampaign: 'ActiveCampaign id' }[crm],
          ),
          h('dd', {}, String(contact[crm].id)),
        ]),
      h('dt', {}, 'Created'),
      h('dd', {}, when(contact.created.at)),
      h('dt', {}, 'Updated'),
      h('dd', {}, when(contact.updated.at)),
    ),
  );
}

async function save(contact, inputs) {
  let attributes;
  try {
    attributes = inputs.attributes.read();
  } catch (err) {
    return showError(err);
  }
  // An update merges attributes key by key: a field removed from the form is removed with null.
  if (contact)
    for (const key of Object.keys(contact.attributes)) if (!(key in attributes)) attributes[key] = null;
  const text = (el) => el.value.trim() || null;
  const body = {
    firstName: text(inputs.firstName),
    lastName: text(inputs.lastName),
    email: text(inputs.email),
    tags: inputs.tags.value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
    attributes,
  };
  const mobile = inputs.mobile.value.trim();
  if (mobile && mobile !== contact?.mobile?.number) body.mobile = mobile;
  try {
    if (contact) {
      const res = await api('PUT', `/contacts/${encodeURIComponent(contact.id)}`, { json: body });
      Object.assign(contact, res.data);
      showInfo('Contact saved.');
    } else {
      // A create answers `data` as an array of the one contact (the published collection shape).
      const res = await api('POST', '/contacts', { json: body });
      showAfterNavigation('Contact created.');
      go(`/contacts/${encodeURIComponent(res.data[0].id)}`);
    }
  } catch (err) {
    showError(err);
  }
}

async function remove(contact) {
  if (!confirm(`Delete ${nameOf(contact)}? Their list memberships go too.`)) return;
  try {
    await api('DELETE', `/contacts/${encodeURIComponent(contact.id)}`);
    go('/contacts');
  } catch (err) {
    showError(err);
  }
}

/**
 * Custom fields as a form: one row per field (its name and its value), a row added by "Add a
 * field", removed by its button. A value keeps its kind where it had one (a number stays a number,
 * yes/no a boolean); a structured value is shown and read as JSON. `read()` answers the object, or
 * throws an Error that says what to fix.
 * @param {Record<string, unknown>} initial
 */
function fieldEditor(initial) {
  const rows = h('div', { class: 'kv-rows' });
  /** @param {string} key @param {unknown} value */
  const addRow = (key = '', value = '') => {
    const shown = value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value ?? '');
    const name = h('input', {
      name: 'fieldName',
      value: key,
      'aria-label': 'Field name',
      placeholder: 'e.g. plan',
      maxlength: 100,
    });
    const val = h('input', {
      name: 'fieldValue',
      value: shown,
      'aria-label': 'Value',
      placeholder: 'e.g. gold',
    });
    const row = h(
      'div',
      { class: 'kv-row inline' },
      name,
      val,
      h(
        'button',
        { type: 'button', class: 'link', 'aria-label': 'Remove this field', onclick: () => row.remove() },
        'Remove',
      ),
    );
    row.dataset.kind = value === null ? 'string' : typeof value;
    rows.append(row);
    return name;
  };
  for (const [k, v] of Object.entries(initial)) addRow(k, v);
  const el = h(
    'div',
    {},
    rows,
    h('button', { type: 'button', class: 'secondary', onclick: () => addRow().focus() }, 'Add a field'),
    h('small', {}, 'Use a field in a message by its name, e.g. a field “plan” as {{{plan}}}.'),
  );
  const read = () => {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const row of rows.querySelectorAll('.kv-row')) {
      const [nameEl, valueEl] = row.querySelectorAll('input');
      const key = nameEl.value.trim();
      const text = valueEl.value;
      if (!key && !text.trim()) continue;
      if (!key) throw new Error(`Give the field with the value “${text}” a name.`);
      if (key in out) throw new Error(`Two fields are named “${key}”: give each its own name.`);
      const kind = /** @type {HTMLElement} */ (row).dataset.kind;
      /** @type {unknown} */
      let value = text;
      if (kind === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) value = Number(text);
      else if (kind === 'boolean' && /^(true|false)$/i.test(text.trim()))
        value = text.trim().toLowerCase() === 'true';
      else if (kind === 'object')
        try {
          value = JSON.parse(text);
        } catch {
          value = text;
        }
      out[key] = value;
    }
    return out;
  };
  return { el, read };
}
