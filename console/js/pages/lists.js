// Lists: static lists (members added by hand) and smart lists (a filter evaluated when read).
import { api } from '../api.js';
import { field, h, nameOf, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError, showInfo } from '../flash.js';
import { go, link } from '../router.js';

/** #/lists?offset= */
export async function listsPage(view, { query }) {
  const offset = Number(query.get('offset') ?? 0);
  const name = h('input', { name: 'name', required: true, maxlength: 200 });
  const smart = h('input', { type: 'checkbox', name: 'smart' });
  const q = h('input', { name: 'q', placeholder: 'Smart list: contacts matching this text' });
  view.append(h('h2', {}, 'Lists'));
  const res = await api('GET', '/lists', { query: { offset, limit: 20 } });
  view.append(
    table(
      [
        ['Name', (l) => h('a', { href: `#/lists/${encodeURIComponent(l.id)}` }, l.name)],
        ['Kind', (l) => (l.filter ? 'smart' : 'static')],
        ['Members', (l) => String(l.size)],
        ['Keyword', (l) => l.keyword ?? ''],
        ['Created', (l) => when(l.created.at)],
      ],
      res.data,
      'No lists yet.',
    ),
    pager(res.pagination, (o) => go('/lists', { offset: o })),
    h(
      'form',
      {
        class: 'panel',
        onsubmit: async (e) => {
          e.preventDefault();
          const body = { name: name.value.trim() };
          if (smart.checked) body.filter = q.value.trim() ? { q: q.value.trim() } : {};
          try {
            const created = await api('POST', '/lists', { json: body });
            showAfterNavigation(`List “${created.data.name}” created.`);
            go(`/lists/${encodeURIComponent(created.data.id)}`);
          } catch (err) {
            showError(err);
          }
        },
      },
      h('h3', {}, 'New list'),
      field('Name', name),
      h('label', { class: 'check' }, smart, ' Smart list (members are the contacts matching a filter)'),
      field('Filter text', q, 'Only for a smart list; empty matches every contact'),
      h('button', { type: 'submit' }, 'Create list'),
    ),
  );
}

/** #/lists/:id?offset= */
export async function listPage(view, { params, query }) {
  const id = encodeURIComponent(params.id);
  const offset = Number(query.get('offset') ?? 0);
  const [list, members] = await Promise.all([
    api('GET', `/lists/${id}`),
    api('GET', `/lists/${id}/contacts`, { query: { offset, limit: 20 } }),
  ]);
  const l = list.data;
  const reload = () => go(`/lists/${params.id}`, { offset, t: Date.now() });
  view.append(
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, l.name),
      h('a', { class: 'button', href: link('/compose', { list: l.id }) }, 'Send to this list'),
    ),
    h(
      'p',
      { class: 'muted' },
      `${l.filter ? 'Smart list' : 'Static list'} · ${l.size} member(s) · created ${when(l.created.at)}`,
    ),
    // (append() would show a null as the text "null": a static list has no filter line at all.)
    l.filter ? h('p', {}, describeFilter(l.filter)) : '',
    table(
      [
        ['Name', (c) => h('a', { href: `#/contacts/${encodeURIComponent(c.id)}` }, nameOf(c))],
        ['Mobile', (c) => c.mobile?.number ?? '—'],
        ['Email', (c) => c.email ?? ''],
        [
          '',
          (c) =>
            l.filter
              ? ''
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    onclick: async () => {
                      try {
                        await api('DELETE', `/lists/${id}/contacts/${encodeURIComponent(c.id)}`);
                        showAfterNavigation(`${nameOf(c)} removed from the list.`);
                        reload();
                      } catch (err) {
                        showError(err);
                      }
                    },
                  },
                  'Remove',
                ),
        ],
      ],
      members.data,
      'No members.',
    ),
    pager(members.pagination, (o) => go(`/lists/${params.id}`, { offset: o })),
    l.filter ? null : addMembers(id, reload),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: async () => {
            if (!confirm(`Delete the list “${l.name}”? Its contacts stay.`)) return;
            try {
              await api('DELETE', `/lists/${id}`);
              go('/lists');
            } catch (err) {
              showError(err);
            }
          },
        },
        'Delete list',
      ),
    ),
  );
}

function addMembers(listId, reload) {
  const q = h('input', { type: 'search', placeholder: 'Find contacts to add' });
  const found = h('div', {});
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        try {
          const res = await api('GET', '/contacts', { query: { q: q.value.trim(), limit: 20 } });
          found.replaceChildren(
            table(
              [
                ['Name', (c) => nameOf(c)],
                ['Mobile', (c) => c.mobile?.number ?? '—'],
                [
                  '',
                  (c) =>
                    h(
                      'button',
                      {
                        type: 'button',
                        onclick: async () => {
                          try {
                            const r = await api('POST', `/lists/${listId}/contacts`, {
                              json: { contactIds: [c.id] },
                            });
                            if (r.data.added) {
                              showAfterNavigation(`${nameOf(c)} added.`);
                              reload();
                            } else showInfo(`${nameOf(c)} is already a member.`);
                          } catch (err) {
                            showError(err);
                          }
                        },
                      },
                      'Add',
                    ),
                ],
              ],
              res.data,
              'No contact matches.',
            ),
          );
        } catch (err) {
          showError(err);
        }
      },
    },
    h('h3', {}, 'Add members'),
    h('div', { class: 'inline' }, q, h('button', { type: 'submit' }, 'Find')),
    found,
  );
}

/**
 * A smart list's filter in words: "Contacts matching “bakery”", tags and conditions named.
 * @param {any} f
 */
function describeFilter(f) {
  const parts = [];
  if (f.q) parts.push(`matching “${f.q}”`);
  if (f.tags?.length)
    parts.push(`tagged ${f.tags.map((t) => (typeof t === 'string' ? t : t.tag)).join(' and ')}`);
  if (f.attributes?.length)
    parts.push(
      `with ${f.attributes.map((a) => `${a.key ?? a.name ?? 'a field'} ${a.operator ?? '='} ${a.value ?? ''}`.trim()).join(' and ')}`,
    );
  if (f.all) parts.push('all of them');
  return parts.length ? `Contacts ${parts.join(', ')}.` : 'Nobody: this smart list has no condition.';
}
