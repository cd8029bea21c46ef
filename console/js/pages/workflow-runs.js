// A workflow's runs (enrollments) under its editor (pages/workflow-editor.js): listed with their
// status, filtered and paged, and a form to enroll a contact by hand.
import { api } from '../api.js';
import { badge, field, h, nameOf, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';

/**
 * The workflow's runs (enrollments), newest first, with status filter and paging, and a form to
 * enroll a contact by hand (a manual trigger's way in).
 * @param {string} workflowId
 * @param {URLSearchParams} query
 */
export async function runsPanel(workflowId, query) {
  const path = `/workflows/${encodeURIComponent(workflowId)}/enrollments`;
  const offset = Number(query.get('roffset') ?? 0);
  const status = query.get('rstatus') ?? '';
  const [runs, contacts] = await Promise.all([
    api('GET', path, { query: { offset, limit: 20, ...(status ? { status } : {}) } }),
    api('GET', '/contacts', { query: { limit: 50 } }),
  ]);
  const byId = new Map(contacts.data.map((/** @type {{id: string}} */ c) => [c.id, c]));
  const here = (/** @type {Record<string, string | number>} */ q) =>
    go(`/workflows/${encodeURIComponent(workflowId)}/editor`, {
      version: query.get('version') ?? '',
      rstatus: status,
      roffset: offset,
      ...q,
    });
  const statusSel = h(
    'select',
    { name: 'run-status', onchange: () => here({ rstatus: statusSel.value, roffset: 0 }) },
    h('option', { value: '' }, 'All'),
    ['active', 'waiting', 'completed', 'stopped', 'errored'].map((s) =>
      h('option', { value: s, selected: s === status }, s),
    ),
  );
  const contactSel = h(
    'select',
    { name: 'enroll-contact', required: true },
    contacts.data.map((/** @type {any} */ c) => h('option', { value: c.id }, nameOf(c))),
  );
  const enroll = async (/** @type {Event} */ e) => {
    e.preventDefault();
    try {
      await api('POST', path, { json: { contactId: contactSel.value } });
      showAfterNavigation('Contact enrolled.');
      here({ t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  return h(
    'section',
    { class: 'panel', 'data-test': 'runs' },
    h('h3', {}, 'Runs'),
    h(
      'form',
      { class: 'inline', onsubmit: (/** @type {Event} */ e) => e.preventDefault() },
      field('Status', statusSel),
    ),
    table(
      [
        [
          'Contact',
          (/** @type {any} */ r) =>
            h(
              'a',
              { href: `#/contacts/${encodeURIComponent(r.contact.id)}` },
              h(
                'bdi',
                { dir: 'auto' },
                byId.has(r.contact.id) ? nameOf(byId.get(r.contact.id)) : r.contact.id,
              ),
            ),
        ],
        ['Status', (/** @type {any} */ r) => badge(r.status)],
        ['At node', (/** @type {any} */ r) => h('bdi', { dir: 'auto' }, r.currentNode)],
        ['Entered', (/** @type {any} */ r) => when(r.entered)],
        ['Next step', (/** @type {any} */ r) => when(r.dueAt)],
        ['Error', (/** @type {any} */ r) => (r.error ? `${r.error.description} (${r.error.code})` : '')],
      ],
      runs.data,
      'No runs yet.',
    ),
    pager(runs.pagination, (o) => here({ roffset: o })),
    contacts.data.length
      ? h(
          'form',
          { class: 'inline', onsubmit: enroll },
          field('Contact', contactSel),
          h('button', { type: 'submit' }, 'Enroll'),
        )
      : h('p', { class: 'muted' }, 'No contacts to enroll yet.'),
  );
}
