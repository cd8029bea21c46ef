// The workflow graph editor: a version's nodes and edges drawn as an SVG graph (laid out in
// columns by distance from the trigger), nodes added from the node-type catalog, edges connected
// between them, each node's settings edited in a form built from its type's properties and checked
// against the type's rules (mandatory fields, lengths, ranges, outgoing-edge rules) before saving.
// Saving makes a new version (or edits a draft that never ran); a version can be activated here;
// the workflow's runs are listed with their status, and a contact can be enrolled by hand. The
// graph's layout, rules and node forms are in workflow-graph.js, its drawing (the SVG, the edges'
// table, the rules broken) in workflow-drawing.js, the runs panel in workflow-runs.js.
import { api } from '../api.js';
import { badge, field, h } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';
import { edgesTable, graphChart, problemsView, scrollIntoGraph, versionPicker } from './workflow-drawing.js';
import { configForm, definitionOf, edgeValues, problemsOf } from './workflow-graph.js';
import { runsPanel } from './workflow-runs.js';

/**
 * @typedef {import('./workflow-graph.js').NodeType} NodeType
 * @typedef {import('./workflow-graph.js').EditorNode} EditorNode
 * @typedef {import('./workflow-graph.js').EditorEdge} EditorEdge
 * @typedef {import('./workflow-graph.js').Version} Version
 */

/**
 * #/workflows/:id/editor?version= — `id` `new` starts a blank workflow.
 * @param {HTMLElement} view
 * @param {{params: Record<string, string>, query: URLSearchParams}} ctx
 */
export async function workflowEditorPage(view, { params, query }) {
  const isNew = params.id === 'new';
  const path = `/workflows/${encodeURIComponent(params.id)}`;
  const [catalog, wfAnswer, lists, groups] = await Promise.all([
    api('GET', '/workflows/nodetypes'),
    isNew ? Promise.resolve(null) : api('GET', path),
    api('GET', '/lists', { query: { limit: 100 } }),
    api('GET', '/groups', { query: { limit: 100 } }),
  ]);
  /** @type {NodeType[]} */
  const catalogTypes = catalog.data;
  const types = new Map(catalogTypes.map((t) => [t.id, t]));
  const wf = wfAnswer?.data;
  /** @type {Version[]} */
  const versions = wf?.versions ?? [];
  const version =
    versions.find((v) => v.id === query.get('version')) ?? versions.find((v) => v.active) ?? versions.at(-1);
  /** @type {EditorNode[]} */
  let nodes = (version?.definition.nodes ?? []).map((n) => ({
    id: n.id,
    typeId: n.type.id,
    config: { ...n.config },
  }));
  /** @type {EditorEdge[]} */
  let edges = (version?.definition.edges ?? []).map((e) => ({
    id: e.id,
    source: e.source,
    target: e.target,
    value: e.value ?? '',
  }));
  if (isNew) nodes = [{ id: 'start', typeId: 'trigger.manual', config: {} }];
  /** @type {string | null} */
  let selected = nodes[0]?.id ?? null;
  let seq = nodes.length + 1;
  const choices = { lists: lists.data, groups: groups.data };

  const graphBox = h('div', { class: 'graph', 'data-test': 'graph' });
  const nodeList = h('ul', { class: 'node-list' });
  const panel = h('div', { class: 'panel node-panel' });
  const edgeBox = h('div', {});
  const problemsBox = h('div', { 'aria-live': 'polite' });
  const sourceSel = h('select', { name: 'edge-source' });
  const targetSel = h('select', { name: 'edge-target' });
  const valueSel = h('select', { name: 'edge-value' });

  const label = (/** @type {EditorNode} */ n) => `${types.get(n.typeId)?.label ?? n.typeId}`;

  function drawGraph() {
    graphBox.replaceChildren(graphChart({ nodes, edges, types, selected, label, onSelect: select }));
  }

  function drawList() {
    nodeList.replaceChildren(
      ...nodes.map((n) =>
        h(
          'li',
          {},
          h(
            'button',
            {
              type: 'button',
              class: n.id === selected ? 'node-button selected' : 'node-button',
              'aria-pressed': n.id === selected ? 'true' : 'false',
              'data-node': n.id,
              onclick: () => select(n.id),
            },
            h('bdi', { dir: 'auto' }, n.id),
            ` · ${label(n)}`,
          ),
        ),
      ),
    );
    const options = (/** @type {boolean} */ forTarget) =>
      nodes
        .filter((n) => !forTarget || types.get(n.typeId)?.type !== 'trigger')
        .map((n) => h('option', { value: n.id }, `${n.id} (${label(n)})`));
    const keepS = sourceSel.value;
    const keepT = targetSel.value;
    sourceSel.replaceChildren(...options(false));
    targetSel.replaceChildren(...options(true));
    if (nodes.some((n) => n.id === keepS)) sourceSel.value = keepS;
    if ([...targetSel.options].some((o) => o.value === keepT)) targetSel.value = keepT;
    drawValues();
  }

  function drawValues() {
    const source = nodes.find((n) => n.id === sourceSel.value);
    valueSel.replaceChildren(
      ...edgeValues(source && types.get(source.typeId)).map((v) => h('option', { value: v }, v || '(none)')),
    );
  }

  function drawEdges() {
    edgeBox.replaceChildren(
      edgesTable(edges, (e) => {
        edges = edges.filter((x) => x !== e);
        redraw();
      }),
    );
  }

  function drawPanel() {
    const n = nodes.find((x) => x.id === selected);
    if (!n) {
      panel.replaceChildren(h('p', { class: 'muted' }, 'Select a step to change its settings.'));
      return;
    }
    const type = types.get(n.typeId);
    panel.replaceChildren(
      h('h3', {}, 'Step ', h('bdi', { dir: 'auto' }, n.id)),
      h('p', { class: 'muted' }, `${type?.label ?? n.typeId}: ${type?.description ?? ''}`),
      type
        ? configForm(n, type, choices, (config) => {
            n.config = config;
            drawProblems();
          })
        : '',
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: () => {
              nodes = nodes.filter((x) => x !== n);
              edges = edges.filter((e) => e.source !== n.id && e.target !== n.id);
              selected = nodes[0]?.id ?? null;
              redraw();
            },
          },
          'Remove node',
        ),
      ),
    );
  }

  function drawProblems() {
    const problems = problemsOf(nodes, edges, types);
    problemsBox.replaceChildren(problemsView(problems));
    return problems;
  }

  function redraw() {
    drawGraph();
    drawList();
    drawEdges();
    drawPanel();
    drawProblems();
  }

  function select(/** @type {string} */ id) {
    selected = id;
    redraw();
    /** @type {HTMLButtonElement | null} */ (
      nodeList.querySelector(`button[data-node="${CSS.escape(id)}"]`)
    )?.focus();
    scrollIntoGraph(graphBox, id);
  }

  // Add a node from the catalog.
  const typeSel = h(
    'select',
    { name: 'node-type' },
    ['trigger', 'action', 'condition'].map((kind) =>
      h(
        'optgroup',
        { label: kind[0].toUpperCase() + kind.slice(1) + 's' },
        catalogTypes.filter((t) => t.type === kind).map((t) => h('option', { value: t.id }, t.label)),
      ),
    ),
  );
  const nodeId = h('input', { name: 'node-id', maxlength: 100, placeholder: 'e.g. welcome' });
  const addNode = (/** @type {Event} */ e) => {
    e.preventDefault();
    const type = types.get(typeSel.value);
    if (!type) return;
    let id = nodeId.value.trim();
    if (!id) {
      do id = `${type.id.split('.').at(-1)}-${seq++}`;
      while (nodes.some((n) => n.id === id));
    }
    if (nodes.some((n) => n.id === id)) {
      showError(new Error(`A node “${id}” exists already: node ids are unique.`));
      return;
    }
    /** @type {Record<string, any>} */
    const config = {};
    for (const p of type.properties)
      if (p.type === 'select' && p.mandatory && p.options[0]) config[p.name] = p.options[0].value;
    nodes.push({ id, typeId: type.id, config });
    nodeId.value = '';
    select(id);
  };
  const addEdge = (/** @type {Event} */ e) => {
    e.preventDefault();
    const source = sourceSel.value;
    const target = targetSel.value;
    if (!source || !target) return;
    if (source === target) {
      showError(new Error('A step cannot lead to itself: pick two different steps.'));
      return;
    }
    let n = edges.length + 1;
    while (edges.some((x) => x.id === `e${n}`)) n++;
    edges.push({ id: `e${n}`, source, target, value: valueSel.value });
    redraw();
  };
  sourceSel.addEventListener('change', drawValues);

  // Save: a new version, or the draft edited in place when it never ran.
  const versionName = h('input', { name: 'version-name', maxlength: 200, value: `v${versions.length + 1}` });
  const workflowName = h('input', {
    name: 'workflow-name',
    required: true,
    maxlength: 200,
    value: wf?.name ?? '',
  });
  const definition = () => definitionOf(nodes, edges);
  const save = async (/** @type {boolean} */ inPlace) => {
    const problems = drawProblems();
    if (problems.length) {
      showError(new Error(`The definition breaks ${problems.length} rule(s): see “Before saving”.`));
      problemsBox.querySelector('.problems')?.scrollIntoView({ block: 'nearest' });
      return;
    }
    try {
      if (isNew) {
        const { data } = await api('POST', '/workflows', {
          json: {
            name: workflowName.value.trim(),
            versions: [{ name: versionName.value.trim(), definition: definition() }],
          },
        });
        showAfterNavigation('Workflow saved.');
        go(`/workflows/${encodeURIComponent(data.id)}/editor`, { version: data.versions[0].id });
        return;
      }
      const body =
        inPlace && version
          ? { id: version.id, definition: definition() }
          : { name: versionName.value.trim(), definition: definition() };
      const { data } = await api('PUT', path, {
        json: {
          ...(workflowName.value.trim() !== wf.name ? { name: workflowName.value.trim() } : {}),
          versions: [body],
        },
      });
      const saved = inPlace && version ? version.id : data.versions.at(-1).id;
      showAfterNavigation(inPlace ? 'Version saved.' : 'New version saved.');
      go(`/workflows/${encodeURIComponent(wf.id)}/editor`, { version: saved, t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };
  const setActive = async (/** @type {boolean} */ activate) => {
    if (!version) return;
    try {
      await api('PUT', path, { json: { versions: [{ id: version.id, activate }] } });
      showAfterNavigation(
        activate ? 'Version activated: contacts can enter it now.' : 'Version deactivated.',
      );
      go(`/workflows/${encodeURIComponent(wf.id)}/editor`, { version: version.id, t: Date.now() });
    } catch (err) {
      showError(err);
    }
  };

  const picker = wf ? versionPicker(wf.id, versions, version) : null;

  view.append(
    h(
      'div',
      { class: 'titlebar' },
      h('h2', {}, isNew ? 'New workflow' : ['Edit workflow ', h('bdi', { dir: 'auto' }, wf.name)]),
      h(
        'a',
        {
          class: 'button secondary',
          href: isNew ? '#/workflows' : `#/workflows/${encodeURIComponent(wf.id)}`,
        },
        isNew ? 'All workflows' : 'Back to the workflow',
      ),
    ),
    h(
      'div',
      { class: 'inline' },
      field('Workflow name', workflowName),
      picker ? field('Version', picker) : null,
      version
        ? h(
            'span',
            {},
            version.active ? badge('active') : badge('draft'),
            version.readonly ? ' has run: saving makes a new version' : '',
          )
        : null,
    ),
    h(
      'div',
      { class: 'editor' },
      h(
        'div',
        { class: 'graph-wrap', tabindex: 0, role: 'group', 'aria-label': 'Workflow graph (scrolls)' },
        graphBox,
      ),
      h('nav', { class: 'node-nav', 'aria-label': 'Steps' }, h('h3', {}, 'Steps'), nodeList),
    ),
    panel,
    h(
      'form',
      { class: 'panel inline-form', onsubmit: addNode },
      h('h3', {}, 'Add a step'),
      field('Kind of step', typeSel),
      field('Name of the step (optional)', nodeId),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add step')),
    ),
    h(
      'form',
      { class: 'panel inline-form', onsubmit: addEdge },
      h('h3', {}, 'What comes next'),
      edgeBox,
      field('From', sourceSel),
      field('To', targetSel),
      field('When (the answer)', valueSel),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Connect')),
    ),
    problemsBox,
    h(
      'div',
      { class: 'panel' },
      h('h3', {}, 'Save'),
      field('New version name', versionName),
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', onclick: () => save(false) },
          isNew ? 'Save workflow' : 'Save as a new version',
        ),
        version && !version.readonly && !isNew
          ? h(
              'button',
              { type: 'button', class: 'secondary', onclick: () => save(true) },
              'Save this version',
            )
          : null,
        version && !isNew
          ? version.active
            ? h(
                'button',
                { type: 'button', class: 'secondary', onclick: () => setActive(false) },
                'Deactivate',
              )
            : h('button', { type: 'button', onclick: () => setActive(true) }, 'Activate this version')
          : null,
      ),
    ),
  );
  redraw();
  if (!isNew) view.append(await runsPanel(wf.id, query));
}
