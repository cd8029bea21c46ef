// The account's saved replies (Inbox): listed, added, changed and deleted; the reply box of a
// thread inserts them (conversations.js).
import { api } from '../api.js';
import { field, h, isolate, table } from '../dom.js';
import { showError, showInfo } from '../flash.js';

/**
 * The account's saved replies: a list with Edit and Delete, and a form that creates one or saves
 * the one being edited (a Viewer sees the list only).
 */
export function savedRepliesPanel(editable) {
  const rows = h('div', {});
  const count = h('span', {});
  const name = h('input', { name: 'replyName', required: true, maxlength: 100 });
  const text = h('textarea', { name: 'replyText', rows: 3, required: true, maxlength: 1600 });
  const save = h('button', { type: 'submit' }, 'Save reply');
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => edit(null) }, 'Cancel');
  const formActions = h('div', { class: 'actions' }, save);
  /** @type {string | null} */
  let editing = null;
  const edit = (/** @type {any} */ r) => {
    editing = r?.id ?? null;
    name.value = r?.name ?? '';
    text.value = r?.text ?? '';
    save.textContent = r ? 'Save changes' : 'Save reply';
    formActions.replaceChildren(save, ...(r ? [cancel] : []));
    if (r) name.focus();
  };
  async function load() {
    const res = await api('GET', '/savedreplies', { query: { limit: 100 } });
    count.textContent = ` (${res.pagination?.totalCount ?? res.data.length})`;
    rows.replaceChildren(
      table(
        [
          ['Name', (r) => h('bdi', {}, r.name)],
          ['Text', (r) => h('span', { class: 'excerpt' }, r.text)],
          [
            '',
            (r) =>
              editable
                ? h(
                    'span',
                    { class: 'row-buttons' },
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'link',
                        onclick: () => edit(r),
                        'aria-label': `Edit ${r.name}`,
                      },
                      'Edit',
                    ),
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'link danger',
                        onclick: () => remove(r),
                        'aria-label': `Delete ${r.name}`,
                      },
                      'Delete',
                    ),
                  )
                : '',
          ],
        ],
        res.data,
        'No saved replies yet.',
      ),
    );
  }
  async function remove(r) {
    if (!confirm(`Delete the saved reply ${isolate(r.name)}?`)) return;
    try {
      await api('DELETE', `/savedreplies/${encodeURIComponent(r.id)}`);
      if (editing === r.id) edit(null);
      showInfo('Saved reply deleted.');
      await load();
    } catch (err) {
      showError(err);
    }
  }
  const form = h(
    'form',
    {
      class: 'saved-reply-form',
      onsubmit: async (e) => {
        e.preventDefault();
        save.disabled = true;
        try {
          const json = { name: name.value.trim(), text: text.value };
          if (editing) await api('PUT', `/savedreplies/${encodeURIComponent(editing)}`, { json });
          else await api('POST', '/savedreplies', { json });
          showInfo(editing ? 'Saved reply changed.' : 'Saved reply added.');
          edit(null);
          await load();
        } catch (err) {
          showError(err);
        } finally {
          save.disabled = false;
        }
      },
    },
    h('h4', {}, 'Add or change a saved reply'),
    field('Name', name, 'What you pick it by, e.g. “Opening hours”.'),
    field(
      'Text',
      text,
      'Inserted into the reply box; merge fields such as {{{firstName}}} are filled in when sent.',
    ),
    formActions,
  );
  const panel = h(
    'details',
    { class: 'panel saved-replies' },
    h('summary', {}, h('h3', { class: 'inline-heading' }, 'Saved replies', count)),
    h('p', { class: 'muted' }, 'Texts you send often, inserted into a reply with one choice.'),
    rows,
    editable ? form : null,
  );
  load().catch(showError);
  return panel;
}
