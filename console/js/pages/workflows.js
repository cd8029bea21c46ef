// Workflows: the account's workflows, a gallery of ready-made templates to start one from, and a
// view of one workflow (its versions, nodes and edges) with activation. The visual graph editor
// is pages/workflow-editor.js (#/workflows/:id/editor).
import { api } from '../api.js';
import { add, badge, h, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go, link } from '../router.js';
import { reportLink } from './reports.js';

const TEMPLATES_PER_PAGE = 6;

/** The version contacts enter (the active one), else the newest. */
function currentVersion(wf) {
  return wf.versions.find((v) => v.active) ?? wf.versions.at(-1);
}

/** What starts a definition, in words (the trigger node's label and its keyword or list). */
function triggerOf(definition) {
  const t = definition?.nodes.find((n) => n.type.type === 'trigger');
  if (!t) return '—';
  if (t.config.keyword) return `${t.type.label}: ${t.config.keyword}`;
  return t.type.label;
}

/** #/workflows?name=&offset=&q=&toffset= */
export async function workflowsPage(view, { query }) {
  const nameFilter = query.get('name') ?? '';
  const offset = Number(query.get('offset') ?? 0);
  const q = query.get('q') ?? '';
  const toffset = Number(query.get('toffset') ?? 0);
  const state = { name: nameFilter, offset, q, toffset };
  const [workflows, templates] = await Promise.all([
    api('GET', '/workflows', { query: { name: nameFilter, offset, limit: 20 } }),
    api('GET', '/workflowtemplates', { query: { q, offset: toffset, limit: TEMPLATES_PER_PAGE } }),
  ]);
  const search = h('input', { type: 'search', value: nameFilter, placeholder: 'Name contains' });
  const templateSearch = h('input', {
    type: 'search',
    value: q,
    placeholder: 'Search templates',
    'aria-label': 'Search templates',
  });
  // add(): skips the null of a missing pager or note and flattens lists (append() would print them).
  add(view, [
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, 'Workflows'),
      h('a', { class: 'button', href: '#/workflows/new/editor' }, 'New workflow'),
    ),
    h(
      'form',
      {
        class: 'inline',
        onsubmit: (e) => {
          e.preventDefault();
          go('/workflows', { ...state, name: search.value.trim(), offset: 0 });
        },
      },
      search,
      h('button', { type: 'submit' }, 'Filter'),
    ),
    table(
      [
        ['Name', (w) => h('a', { href: link(`/workflows/${encodeURIComponent(w.id)}`) }, w.name)],
        ['Trigger', (w) => triggerOf(currentVersion(w)?.definition)],
        ['Versions', (w) => String(w.versions.length)],
        ['Status', (w) => (w.versions.some((v) => v.active) ? badge('active') : badge('draft'))],
        ['Updated', (w) => when(w.updated.at)],
      ],
      workflows.data,
      'No workflows yet: start from a template below.',
    ),
    pager(workflows.pagination, (o) => go('/workflows', { ...state, offset: o })),
    h(
      'section',
      { class: 'panel', 'data-test': 'template-gallery' },
      h('h3', {}, 'Start from a template'),
      h(
        'form',
        {
          class: 'inline',
          onsubmit: (e) => {
            e.preventDefault();
            go('/workflows', { ...state, q: templateSearch.value.trim(), toffset: 0 });
          },
        },
        templateSearch,
        h('button', { type: 'submit' }, 'Search'),
      ),
      templates.data.length
        ? h('div', { class: 'cards' }, templates.data.map(templateCard))
        : h('p', { class: 'empty' }, 'No template matches.'),
      pager(templates.pagination, (o) => go('/workflows', { ...state, toffset: o })),
    ),
  ]);
}

function templateCard(t) {
  const name = h('input', {
    name: 'name',
    required: true,
    maxlength: 200,
    value: t.name,
    'aria-label': `Name of the workflow made from ${t.name}`,
  });
  const button = h('button', { type: 'submit' }, 'Use this template');
  const definition = t.versions[0].definition;
  const steps = definition.nodes.filter((n) => n.type.type !== 'trigger' && n.type.id !== 'action.end');
  return h(
    'form',
    {
      class: 'card template-card',
      'data-template': t.id,
      onsubmit: async (e) => {
        e.preventDefault();
        button.disabled = true;
        try {
          const res = await api('POST', '/workflows', {
            json: { templateId: t.id, name: name.value.trim() },
          });
          showAfterNavigation(`Workflow “${res.data.name}” created from the template “${t.name}”.`);
          go(`/workflows/${encodeURIComponent(res.data.id)}`);
        } catch (err) {
          showError(err);
          button.disabled = false;
        }
      },
    },
    h('h4', {}, t.name),
    h('span', { class: 'tag' }, t.category),
    h('p', {}, t.description),
    h('p', { class: 'muted' }, `${triggerOf(definition)} · ${steps.length} step(s)`),
    name,
    h('div', { class: 'actions' }, button),
  );
}

/** A node's settings in a few words. */
function configSummary(n) {
  const c = n.config ?? {};
  if (c.message) return c.message;
  if (c.delay) {
    const { days = 0, hours = 0, minutes = 0 } = c.delay;
    return [days && `${days} d`, hours && `${hours} h`, minutes && `${minutes} min`]
      .filter(Boolean)
      .join(' ');
  }
  if (c.keyword) return `keyword ${c.keyword}`;
  if (c.attribute) return `${c.attribute} ${c.comparator ?? '='} “${c.value ?? ''}”`;
  if (c.listId) return `list ${c.listId}`;
  return '';
}

/** #/workflows/:id */
export async function workflowPage(view, { params }) {
  const path = `/workflows/${encodeURIComponent(params.id)}`;
  const wf = (await api('GET', path)).data;
  const setActive = async (versionId, activate) => {
    try {
      await api('PUT', path, { json: { versions: [{ id: versionId, activate }] } });
      showAfterNavigation(
        activate ? 'Version activated: contacts can enter it now.' : 'Version deactivated.',
      );
      go(`/workflows/${encodeURIComponent(wf.id)}`, { t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete the workflow “${wf.name}” with its versions and enrollments?`)) return;
    try {
      await api('DELETE', path);
      showAfterNavigation('Workflow deleted.');
      go('/workflows');
    } catch (err) {
      showError(err);
    }
  };
  add(view, [
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, wf.name),
      h('a', { class: 'button secondary', href: '#/workflows' }, 'All workflows'),
    ),
    h(
      'p',
      { class: 'muted' },
      `Created ${when(wf.created.at)} · updated ${when(wf.updated.at)} · id ${wf.id}. `,
      h(
        'a',
        { href: `#/workflows/${encodeURIComponent(wf.id)}/editor` },
        'Open the graph editor (versions, runs)',
      ),
    ),
    wf.versions.length ? null : h('p', { class: 'empty' }, 'This workflow has no version yet.'),
    wf.versions.map((v) =>
      h(
        'section',
        { class: 'panel', 'data-version': v.id },
        h(
          'div',
          { class: 'titlebar' },
          h('h3', {}, `Version “${v.name || v.id}”`),
          h(
            'span',
            {},
            v.active ? badge('active') : badge('draft'),
            v.readonly ? [' ', h('span', { class: 'tag' }, 'read-only')] : null,
          ),
        ),
        h('h4', {}, 'Nodes'),
        table(
          [
            ['Node', (n) => n.id],
            ['Type', (n) => n.type.label],
            ['Settings', (n) => h('span', { class: 'excerpt' }, configSummary(n))],
          ],
          v.definition.nodes,
          'No nodes.',
        ),
        h('h4', {}, 'Edges'),
        table(
          [
            ['From', (e) => e.source],
            ['To', (e) => e.target],
            ['When', (e) => (e.value ? `${e.value}${e.type === 'timeout' ? ' (time-out)' : ''}` : '—')],
          ],
          v.definition.edges,
          'No edges.',
        ),
        h(
          'div',
          { class: 'actions' },
          v.active
            ? h(
                'button',
                { type: 'button', class: 'secondary', onclick: () => setActive(v.id, false) },
                'Deactivate',
              )
            : h('button', { type: 'button', onclick: () => setActive(v.id, true) }, 'Activate'),
          h(
            'a',
            {
              class: 'button secondary',
              href: link(`/workflows/${encodeURIComponent(wf.id)}/editor`, { version: v.id }),
            },
            'Edit in the graph editor',
          ),
        ),
      ),
    ),
    h(
      'div',
      { class: 'actions' },
      reportLink('workflows', wf.id),
      h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete workflow'),
    ),
  ]);
}
