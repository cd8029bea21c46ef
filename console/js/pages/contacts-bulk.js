// A bulk action on the contacts page: the rows ticked, or every contact matching the search →
// block, tag, add to a list… (POST …/bulk/contacts), then the job's page to follow it.
import { api } from '../api.js';
import { field, h } from '../dom.js';
import { showError } from '../flash.js';
import { go } from '../router.js';

const ACTIONS = [
  ['block', 'Block'],
  ['unblock', 'Unblock'],
  ['tag', 'Add tags'],
  ['untag', 'Remove tags'],
  ['addToList', 'Add to list'],
  ['removeFromList', 'Remove from list'],
  ['optOut', 'Opt out'],
  ['optIn', 'Opt in'],
  ['delete', 'Delete'],
];

/** A checkbox cell for a contact row (the bulk panel reads the ticked ones). */
export function selectCell(contact) {
  return h('input', { type: 'checkbox', name: 'bulk-select', value: contact.id, 'aria-label': 'Select' });
}

/** The bulk action panel for the contacts shown in `scope` (an element holding the rows), searched by `q`. */
export function bulkPanel(scope, q) {
  const which = h(
    'select',
    { name: 'bulk-which' },
    h('option', { value: 'selected' }, 'The ticked contacts'),
    h('option', { value: 'matching' }, q ? `Every contact matching “${q}”` : 'Every contact'),
  );
  const action = h(
    'select',
    { name: 'bulk-action', onchange: () => shape() },
    ACTIONS.map(([v, label]) => h('option', { value: v }, label)),
  );
  const tags = h('input', { name: 'bulk-tags', placeholder: 'vip, newsletter' });
  const list = h('select', { name: 'bulk-list' });
  const tagsField = field('Tags', tags, 'Separated by commas');
  const listField = field('List', list);
  const shape = () => {
    tagsField.hidden = !['tag', 'untag'].includes(action.value);
    listField.hidden = !['addToList', 'removeFromList'].includes(action.value);
  };
  shape();
  api('GET', '/lists', { query: { limit: 100 } })
    .then((res) => {
      list.replaceChildren(
        ...res.data.filter((l) => !l.filter).map((l) => h('option', { value: l.id }, l.name)),
      );
    })
    .catch(() => {
      // Without lists:read the list actions simply have no list to offer.
    });
  const button = h('button', { type: 'submit' }, 'Run');
  return h(
    'form',
    {
      class: 'panel',
      onsubmit: async (e) => {
        e.preventDefault();
        const ids = [...scope.querySelectorAll('input[name=bulk-select]:checked')].map((el) => el.value);
        const selector = which.value === 'selected' ? { ids } : { filters: q ? { q } : { all: true } };
        if (which.value === 'selected' && ids.length === 0)
          return showError(new Error('Tick the contacts to change, or choose every matching contact.'));
        const body = { action: action.value, selector };
        if (!tagsField.hidden)
          body.tags = tags.value
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean);
        if (!listField.hidden) body.listId = list.value;
        const label = ACTIONS.find(([v]) => v === action.value)?.[1] ?? action.value;
        const count = which.value === 'selected' ? `${ids.length} contact(s)` : 'every matching contact';
        if (!confirm(`${label}: ${count}?`)) return;
        button.disabled = true;
        try {
          const res = await api('POST', '/bulk/contacts', { json: body });
          go(`/jobs/${encodeURIComponent(res.data.id)}`);
        } catch (err) {
          showError(err);
        } finally {
          button.disabled = false;
        }
      },
    },
    h('h3', {}, 'Bulk action'),
    field('Contacts', which),
    field('Action', action),
    tagsField,
    listField,
    button,
  );
}
