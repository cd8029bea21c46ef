// Workflows: the account's workflows, a gallery of ready-made templates to start one from, and a
// view of one workflow (its versions, nodes and edges) with activation. The visual graph editor
// is pages/workflow-editor.js (#/workflows/:id/editor).
import { api } from '../api.js';
import { add, badge, h, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { listPager, listWithTemplates, nameFilter, templateCard, templateGallery } from '../gallery.js';
import { go, link } from '../router.js';
import { reportLink } from './reports.js';

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
  const {
    state,
    list: workflows,
    templates,
  } = await listWithTemplates(query, '/workflows', '/workflowtemplates');
  // add(): skips the null of a missing pager or note and flattens lists (append() would print them).
  add(view, [
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, 'Workflows'),
      h('a', { class: 'button', href: '#/workflows/new/editor' }, 'New workflow'),
    ),
    nameFilter('/workflows', state),
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
    listPager('/workflows', state, workflows.pagination),
    templateGallery('/workflows', state, templates, workflowTemplateCard, {
      testId: 'template-gallery',
      label: 'Search templates',
    }),
  ]);
}

/** @param {any} t */
function workflowTemplateCard(t) {
  const definition = t.versions[0].definition;
  const steps = definition.nodes.filter((n) => n.type.type !== 'trigger' && n.type.id !== 'action.end');
  return templateCard(
    t,
    `Name of the workflow made from ${t.name}`,
    h('p', { class: 'muted' }, `${triggerOf(definition)} · ${steps.length} step(s)`),
    async (name, button) => {
      try {
        const res = await api('POST', '/workflows', { json: { templateId: t.id, name } });
        showAfterNavigation(`Workflow “${res.data.name}” created from the template “${t.name}”.`);
        go(`/workflows/${encodeURIComponent(res.data.id)}`);
      } catch (err) {
        showError(err);
        button.disabled = false;
      }
    },
  );
}

/** A condition's outcomes in words (a step after a condition runs when…). */
const WHEN = { true: 'yes', false: 'no' };

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
        h('h4', {}, 'Steps'),
        table(
          [
            ['Step', (n) => n.id],
            ['What it does', (n) => n.type.label],
            ['Settings', (n) => h('span', { class: 'excerpt' }, configSummary(n))],
          ],
          v.definition.nodes,
          'No steps.',
        ),
        h('h4', {}, 'What comes next'),
        table(
          [
            ['After', (e) => e.source],
            ['Next', (e) => e.target],
            [
              'When',
              (e) =>
                `${WHEN[e.value] ?? (e.value ? String(e.value) : 'always')}${e.type === 'timeout' ? ' (time ran out)' : ''}`,
            ],
          ],
          v.definition.edges,
          'Nothing follows any step.',
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
