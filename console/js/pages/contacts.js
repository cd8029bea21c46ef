// Contacts: search and page through them, create, edit, delete, and import a CSV file (contacts-import.js).
import { api } from '../api.js';
import { field, filterForm, h, nameOf, pager, table, when } from '../dom.js';
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
      h('a', { class: 'button', href: '#/contacts/new' }, 'New contact'),
    ),
    filterForm(search, () => go('/contacts', { q: search.value.trim() }), 'Search', { role: 'search' }),
  );
  const res = await api('GET', '/contacts', { query: { q, offset, limit: 20 } });
  const rows = h('div', {});
  view.append(rows);
  rows.append(
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
  view.append(bulkPanel(rows, q), importForm());
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
    attributes: h('textarea', { name: 'attributes', rows: 4 }),
  };
  inputs.attributes.value = JSON.stringify(contact?.attributes ?? {}, null, 2);
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
    field('Attributes (JSON object)', inputs.attributes),
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
    attributes = JSON.parse(inputs.attributes.value || '{}');
    if (!attributes || typeof attributes !== 'object' || Array.isArray(attributes)) throw new Error();
  } catch {
    return showError(new Error('Attributes must be a JSON object, e.g. {"plan": "gold"}.'));
  }
  // An update merges attributes key by key: a key taken out of the text is removed with null.
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
