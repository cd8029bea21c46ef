// The workflow graph editor: a version's nodes and edges drawn as an SVG graph (laid out in
// columns by distance from the trigger), nodes added from the node-type catalog, edges connected
// between them, each node's settings edited in a form built from its type's properties and checked
// against the type's rules (mandatory fields, lengths, ranges, outgoing-edge rules) before saving.
// Saving makes a new version (or edits a draft that never ran); a version can be activated here;
// the workflow's runs are listed with their status, and a contact can be enrolled by hand.
import { api } from '../api.js';
import { badge, field, h, isolate, nameOf, pager, table, when } from '../dom.js';
import { showAfterNavigation, showError } from '../flash.js';
import { go } from '../router.js';

/**
 * @typedef {{type: string, name: string, label: string, helperText: string, mandatory: boolean,
 *   options: {value: string, label: string}[], min?: number, max?: number}} NodeProperty
 * @typedef {{type: string, value: {mandatory: boolean, editable: boolean, value: string}}} EdgeRule
 * @typedef {{id: string, type: 'trigger' | 'action' | 'condition', name: string, label: string,
 *   group: string, description: string, properties: NodeProperty[],
 *   validation: {numEdgeCondition: 'exactly' | 'max', numEdges: number, edges: EdgeRule[]}}} NodeType
 * @typedef {{id: string, typeId: string, config: Record<string, any>}} EditorNode
 * @typedef {{id: string, source: string, target: string, value: string}} EditorEdge
 * @typedef {{id: string, name: string, readonly: boolean, active?: string,
 *   definition: {nodes: {id: string, type: NodeType, config: Record<string, any>}[], edges: EditorEdge[]}}} Version
 */

const NODE_W = 170;
const NODE_H = 52;
const COL_W = 220;
const ROW_H = 84;
const PAD = 16;
const NS = 'http://www.w3.org/2000/svg';

/** A text cut to fit a node's box. */
const clip = (/** @type {string} */ s) => (s.length > 22 ? `${s.slice(0, 21)}…` : s);

/** An SVG element with attributes (values set as attributes, never parsed as markup). */
function svg(
  /** @type {string} */ tag,
  /** @type {Record<string, string | number>} */ attrs = {},
  /** @type {(Node | string)[]} */ ...children
) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/**
 * Columns by the longest distance from a node without incoming edges (cycles cut), rows in order.
 * @param {EditorNode[]} nodes
 * @param {EditorEdge[]} edges
 * @returns {Map<string, {x: number, y: number}>}
 */
export function layout(nodes, edges) {
  /** @type {Map<string, number>} */
  const depth = new Map(nodes.map((n) => [n.id, 0]));
  // Longest path by relaxation, at most |nodes| rounds: a cycle stops growing there.
  for (let round = 0; round < nodes.length; round++) {
    let changed = false;
    for (const e of edges) {
      const d = (depth.get(e.source) ?? 0) + 1;
      if (depth.has(e.target) && d > (depth.get(e.target) ?? 0) && d < nodes.length) {
        depth.set(e.target, d);
        changed = true;
      }
    }
    if (!changed) break;
  }
  /** @type {Map<number, number>} */
  const rows = new Map();
  /** @type {Map<string, {x: number, y: number}>} */
  const at = new Map();
  for (const n of nodes) {
    const col = depth.get(n.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    at.set(n.id, { x: PAD + col * COL_W, y: PAD + row * ROW_H });
  }
  return at;
}

/**
 * The problems of a definition by its node types' rules, in words (empty: it can be saved).
 * @param {EditorNode[]} nodes
 * @param {EditorEdge[]} edges
 * @param {Map<string, NodeType>} types
 * @returns {string[]}
 */
export function problemsOf(nodes, edges, types) {
  /** @type {string[]} */
  const out = [];
  const triggers = nodes.filter((n) => types.get(n.typeId)?.type === 'trigger');
  if (triggers.length !== 1) out.push(`A workflow needs exactly one trigger; it has ${triggers.length}.`);
  for (const n of nodes) {
    const type = types.get(n.typeId);
    if (!type) {
      out.push(`Node “${n.id}” has an unknown type.`);
      continue;
    }
    for (const p of type.properties) {
      const v = n.config[p.name];
      const empty = v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
      if (empty) {
        if (p.mandatory) out.push(`Node “${n.id}”: ${p.label} is required.`);
        continue;
      }
      if (p.type === 'delay') {
        const total = (v.days ?? 0) * 1440 + (v.hours ?? 0) * 60 + (v.minutes ?? 0);
        if (
          ![v.days ?? 0, v.hours ?? 0, v.minutes ?? 0].every((x) => Number.isInteger(x) && x >= 0) ||
          total <= 0
        )
          out.push(`Node “${n.id}”: ${p.label} must be whole days, hours and minutes, more than zero.`);
      } else if (p.type === 'number') {
        if (!Number.isInteger(v) || (p.min !== undefined && v < p.min) || (p.max !== undefined && v > p.max))
          out.push(
            `Node “${n.id}”: ${p.label} must be a whole number${p.min !== undefined ? ` from ${p.min}` : ''}${p.max !== undefined ? ` to ${p.max}` : ''}.`,
          );
      } else if (typeof v === 'string') {
        if (p.min !== undefined && v.trim().length < p.min)
          out.push(`Node “${n.id}”: ${p.label} is too short.`);
        if (p.max !== undefined && v.length > p.max)
          out.push(`Node “${n.id}”: ${p.label} is longer than ${p.max} characters.`);
        if (p.options.length && !p.options.some((o) => o.value === v))
          out.push(`Node “${n.id}”: ${p.label} must be one of ${p.options.map((o) => o.value).join(' ')}.`);
      }
    }
    if (type.type === 'trigger' && edges.some((e) => e.target === n.id))
      out.push(`A step leads back into the start “${n.id}”.`);
    const outgoing = edges.filter((e) => e.source === n.id);
    const { numEdgeCondition, numEdges, edges: rules } = type.validation;
    if (numEdgeCondition === 'exactly' ? outgoing.length !== numEdges : outgoing.length > numEdges)
      out.push(
        `Step “${n.id}” needs ${numEdgeCondition === 'exactly' ? 'exactly' : 'at most'} ${numEdges} ${numEdges === 1 ? 'step' : 'steps'} after it; it has ${outgoing.length}.`,
      );
    const fixed = rules.filter((r) => !r.value.editable).map((r) => r.value.value);
    if (fixed.length) {
      const seen = new Set();
      for (const e of outgoing) {
        if (!fixed.includes(e.value) || seen.has(e.value))
          out.push(
            `The path from “${n.id}” to “${e.target}” needs its own answer among ${fixed.join(', ')}.`,
          );
        seen.add(e.value);
      }
    }
  }
  return out;
}

/** The values an edge from a node of this type may carry ([''] when free). */
function edgeValues(/** @type {NodeType | undefined} */ type) {
  const fixed = (type?.validation.edges ?? []).filter((r) => !r.value.editable).map((r) => r.value.value);
  return fixed.length ? fixed : [''];
}

/**
 * A node's settings form, built from its type's properties; `onchange(config)` on every edit.
 * @param {EditorNode} node
 * @param {NodeType} type
 * @param {{lists: {id: string, name: string}[], groups: {id: string, name: string}[]}} choices
 * @param {(config: Record<string, any>) => void} onchange
 */
function configForm(node, type, choices, onchange) {
  const config = { ...node.config };
  const set = (/** @type {string} */ name, /** @type {any} */ value) => {
    if (value === undefined || value === '' || (Array.isArray(value) && !value.length)) delete config[name];
    else config[name] = value;
    onchange({ ...config });
  };
  const controls = type.properties.map((p) => {
    const label = `${p.label}${p.mandatory ? ' (required)' : ''}`;
    const hint = p.helperText || undefined;
    const v = config[p.name];
    const base = { name: `config-${p.name}`, required: p.mandatory };
    if (p.type === 'delay') {
      const part = (/** @type {'days' | 'hours' | 'minutes'} */ key, /** @type {string} */ text) => {
        const input = h('input', {
          type: 'number',
          min: 0,
          name: `config-${p.name}-${key}`,
          value: String(v?.[key] ?? 0),
          oninput: () => {
            const d = { ...(config[p.name] ?? {}) };
            d[key] = Number(input.value || 0);
            set(p.name, d);
          },
        });
        return field(text, input);
      };
      return h(
        'fieldset',
        { class: 'delay' },
        h('legend', {}, label),
        part('days', 'Days'),
        part('hours', 'Hours'),
        part('minutes', 'Minutes'),
        hint ? h('small', {}, hint) : null,
      );
    }
    if (p.type === 'select' || p.type === 'list' || p.type === 'group') {
      const options =
        p.type === 'select'
          ? p.options.map((o) => ({ value: o.value, label: o.label }))
          : (p.type === 'list' ? choices.lists : choices.groups).map((x) => ({
              value: x.id,
              label: isolate(x.name),
            }));
      const select = h(
        'select',
        { ...base, onchange: () => set(p.name, select.value || undefined) },
        h('option', { value: '' }, p.mandatory ? 'Choose…' : '(none)'),
        options.map((o) => h('option', { value: o.value, selected: o.value === v }, o.label)),
      );
      return field(label, select, hint);
    }
    if (p.type === 'number') {
      const input = h('input', {
        ...base,
        type: 'number',
        min: p.min,
        max: p.max,
        value: v === undefined ? '' : String(v),
        oninput: () => set(p.name, input.value === '' ? undefined : Number(input.value)),
      });
      return field(label, input, hint);
    }
    if (p.type === 'media') {
      const area = h(
        'textarea',
        {
          ...base,
          rows: 2,
          dir: 'auto',
          oninput: () =>
            set(
              p.name,
              area.value
                .split('\n')
                .map((s) => s.trim())
                .filter(Boolean)
                .map((url) => ({ url })),
            ),
        },
        Array.isArray(v) ? v.map((m) => m.url).join('\n') : '',
      );
      return field(label, area, hint ?? 'One URL a line.');
    }
    const long = p.name === 'message';
    const input = long
      ? h(
          'textarea',
          { ...base, rows: 3, dir: 'auto', maxlength: p.max, oninput: () => set(p.name, input.value) },
          typeof v === 'string' ? v : '',
        )
      : h('input', {
          ...base,
          dir: 'auto',
          maxlength: p.max,
          value: typeof v === 'string' ? v : '',
          oninput: () => set(p.name, input.value),
        });
    return field(label, input, hint);
  });
  return h(
    'div',
    { class: 'config-form' },
    controls.length ? controls : h('p', { class: 'muted' }, 'This step has no settings.'),
  );
}

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
    const at = layout(nodes, edges);
    const width = Math.max(...[...at.values()].map((p) => p.x + NODE_W + PAD), 320);
    const height = Math.max(...[...at.values()].map((p) => p.y + NODE_H + PAD), 120);
    const chart = svg('svg', {
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      class: 'workflow-graph',
      role: 'img',
      'aria-label': `Workflow graph: ${nodes.length} node(s), ${edges.length} edge(s). The node list beside it selects and edits nodes.`,
    });
    chart.append(
      svg(
        'defs',
        {},
        svg(
          'marker',
          {
            id: 'arrow',
            viewBox: '0 0 10 10',
            refX: 10,
            refY: 5,
            markerWidth: 7,
            markerHeight: 7,
            orient: 'auto-start-reverse',
          },
          svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }),
        ),
      ),
    );
    for (const e of edges) {
      const s = at.get(e.source);
      const t = at.get(e.target);
      if (!s || !t) continue;
      const x1 = s.x + NODE_W;
      const y1 = s.y + NODE_H / 2;
      const x2 = t.x;
      const y2 = t.y + NODE_H / 2;
      const bend = Math.max(40, Math.abs(x2 - x1) / 2);
      const d =
        x2 > x1
          ? `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`
          : `M ${x1} ${y1} C ${x1 + 80} ${y1 - 60}, ${x2 - 80} ${y2 - 60}, ${x2} ${y2}`;
      chart.append(svg('path', { d, class: 'edge', 'marker-end': 'url(#arrow)', 'data-edge': e.id }));
      if (e.value)
        chart.append(svg('text', { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 4, class: 'edge-label' }, e.value));
    }
    for (const n of nodes) {
      const p = at.get(n.id);
      if (!p) continue;
      const kind = types.get(n.typeId)?.type ?? 'action';
      const g = svg('g', {
        class: `node node-${kind}${n.id === selected ? ' selected' : ''}`,
        'data-node': n.id,
        transform: `translate(${p.x} ${p.y})`,
      });
      g.append(
        svg('rect', { width: NODE_W, height: NODE_H, rx: 8 }),
        svg('text', { x: 10, y: 20, class: 'node-type' }, clip(label(n))),
        svg('text', { x: 10, y: 40, class: 'node-id' }, clip(n.id)),
      );
      g.addEventListener('click', () => select(n.id));
      chart.append(g);
    }
    graphBox.replaceChildren(chart);
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
      table(
        [
          ['From', (/** @type {EditorEdge} */ e) => h('bdi', { dir: 'auto' }, e.source)],
          ['To', (/** @type {EditorEdge} */ e) => h('bdi', { dir: 'auto' }, e.target)],
          ['When', (/** @type {EditorEdge} */ e) => e.value || '—'],
          [
            '',
            (/** @type {EditorEdge} */ e) =>
              h(
                'button',
                {
                  type: 'button',
                  class: 'link danger',
                  'aria-label': `Remove the edge from ${e.source} to ${e.target}`,
                  onclick: () => {
                    edges = edges.filter((x) => x !== e);
                    redraw();
                  },
                },
                'Remove',
              ),
          ],
        ],
        edges,
        'Nothing comes after any step yet: connect the steps below.',
      ),
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
    problemsBox.replaceChildren(
      problems.length
        ? h(
            'div',
            { class: 'problems', 'data-test': 'problems' },
            h('strong', {}, 'Before saving:'),
            h(
              'ul',
              {},
              problems.map((p) => h('li', {}, p)),
            ),
          )
        : h(
            'p',
            { class: 'ok', 'data-test': 'problems-none' },
            'The definition follows every node type’s rules.',
          ),
    );
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
    showInGraph(id);
  }

  /** Scrolls the graph's box (not the page) so that the node is in view, e.g. chosen in the list on a phone. */
  function showInGraph(/** @type {string} */ id) {
    const wrap = graphBox.parentElement;
    const node = graphBox.querySelector(`g[data-node="${CSS.escape(id)}"]`);
    if (!wrap || !node) return;
    const box = wrap.getBoundingClientRect();
    const at = node.getBoundingClientRect();
    // Where the node is in the scrolled graph; then the least scroll that shows it whole, its start first.
    const left = at.left - box.left - wrap.clientLeft + wrap.scrollLeft;
    const top = at.top - box.top - wrap.clientTop + wrap.scrollTop;
    const margin = 8;
    wrap.scrollLeft = Math.min(
      Math.max(wrap.scrollLeft, left + at.width + margin - wrap.clientWidth),
      left - margin,
    );
    wrap.scrollTop = Math.min(
      Math.max(wrap.scrollTop, top + at.height + margin - wrap.clientHeight),
      top - margin,
    );
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
  const definition = () => ({
    nodes: nodes.map((n) => ({ id: n.id, type: { id: n.typeId }, config: n.config })),
    edges: edges.map((e) => ({
      id: e.id,
      source: e.source,
      target: e.target,
      ...(e.value ? { value: e.value } : {}),
    })),
  });
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

  const versionPicker = versions.length
    ? h(
        'select',
        {
          name: 'version',
          onchange: (/** @type {Event} */ e) =>
            go(`/workflows/${encodeURIComponent(wf.id)}/editor`, {
              version: /** @type {HTMLSelectElement} */ (e.target).value,
            }),
        },
        versions.map((v) =>
          h(
            'option',
            { value: v.id, selected: v.id === version?.id },
            `${v.name || v.id}${v.active ? ' (active)' : ''}${v.readonly ? ' (has run)' : ''}`,
          ),
        ),
      )
    : null;

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
      versionPicker ? field('Version', versionPicker) : null,
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

/**
 * The workflow's runs (enrollments), newest first, with status filter and paging, and a form to
 * enroll a contact by hand (a manual trigger's way in).
 * @param {string} workflowId
 * @param {URLSearchParams} query
 */
async function runsPanel(workflowId, query) {
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
