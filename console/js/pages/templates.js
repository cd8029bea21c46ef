// Templates: saved message texts with merge fields; list, create, edit and delete.
import { api } from '../api.js';
import { field, filterForm, h, pager, searchInput, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { mergeButtons, messageBox } from '../message-box.js';
import { go, link } from '../router.js';

/** #/templates?name=&offset=&edit= */
export async function templatesPage(view, { query }) {
  const nameFilter = query.get('name') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const editing = query.get('edit');
  const res = await api('GET', '/templates', { query: { name: nameFilter, offset, limit: 20 } });
  const current = editing ? (await api('GET', `/templates/${encodeURIComponent(editing)}`)).data : null;
  const search = searchInput(nameFilter, 'Name contains');
  view.append(
    h('h2', {}, 'Templates'),
    filterForm(search, () => go('/templates', { name: search.value.trim() })),
    table(
      [
        ['Name', (t) => h('a', { href: link('/templates', { edit: t.id }) }, t.name)],
        ['Text', (t) => h('span', { class: 'excerpt' }, t.template)],
        ['Encoding', (t) => `${t.encoding} · ${t.segments} segment(s)`],
        ['Merge fields', (t) => t.mergeFields.join(', ')],
        ['Updated', (t) => when(t.updated.at)],
      ],
      res.data,
      'No templates yet.',
    ),
    pager(res.pagination, (o) => go('/templates', { name: nameFilter, offset: o })),
    editor(current),
  );
}

function editor(t) {
  const name = h('input', { name: 'name', required: true, maxlength: 200, value: t?.name ?? '' });
  const box = messageBox('template');
  box.textarea.maxLength = 1600;
  box.textarea.value = t?.template ?? '';
  box.update();
  const submit = async (e) => {
    e.preventDefault();
    const body = { name: name.value.trim(), template: box.textarea.value };
    try {
      if (t) {
        await api('PUT', `/templates/${encodeURIComponent(t.id)}`, { json: body });
        showAfterNavigation('Template saved.');
        go('/templates', { t: Date.now() });
      } else {
        await api('POST', '/templates', { json: body });
        showAfterNavigation('Template created.');
        go('/templates', { t: Date.now() });
      }
    } catch (err) {
      showError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the template “${t.name}”?`)) return;
    try {
      await api('DELETE', `/templates/${encodeURIComponent(t.id)}`);
      showAfterNavigation('Template deleted.');
      go('/templates');
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'form',
    { class: 'panel', onsubmit: submit },
    h('h3', {}, t ? `Edit “${t.name}”` : 'New template'),
    field('Name', name),
    field('Text', box.textarea, '“Insert” adds a recipient’s name or number where the cursor is'),
    mergeButtons(box.textarea, box.update),
    box.counter,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, t ? 'Save template' : 'Create template'),
      t ? h('a', { class: 'button secondary', href: '#/templates' }, 'Cancel') : null,
      t ? h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete') : null,
    ),
  );
}
