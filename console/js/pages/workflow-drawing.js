// What the workflow editor draws from its state: the graph as SVG (nodes in the columns of
// workflow-graph.js's layout, edges as arrows with their answers), the table of edges, and the
// list of rules the definition breaks. Each answers an element; the editor places it.
import { h, table } from '../dom.js';
import { go } from '../router.js';
import { clip, layout, NODE_H, NODE_W, PAD, svg } from './workflow-graph.js';

/**
 * @typedef {import('./workflow-graph.js').NodeType} NodeType
 * @typedef {import('./workflow-graph.js').EditorNode} EditorNode
 * @typedef {import('./workflow-graph.js').EditorEdge} EditorEdge
 * @typedef {import('./workflow-graph.js').Version} Version
 */

/** The arrowhead every edge ends with. */
function arrowDefs() {
  return svg(
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
  );
}

/** An edge's curve from the source's right side to the target's left (looping over a step back). */
function edgePath(/** @type {{x: number, y: number}} */ s, /** @type {{x: number, y: number}} */ t) {
  const x1 = s.x + NODE_W;
  const y1 = s.y + NODE_H / 2;
  const x2 = t.x;
  const y2 = t.y + NODE_H / 2;
  const bend = Math.max(40, Math.abs(x2 - x1) / 2);
  const d =
    x2 > x1
      ? `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`
      : `M ${x1} ${y1} C ${x1 + 80} ${y1 - 60}, ${x2 - 80} ${y2 - 60}, ${x2} ${y2}`;
  return { d, labelAt: { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 4 } };
}

/**
 * The graph: every node a box (its type's label and its id; the selected one marked), every edge
 * an arrow. Clicking a node calls `onSelect` with its id.
 * @param {{nodes: EditorNode[], edges: EditorEdge[], types: Map<string, NodeType>,
 *   selected: string | null, label: (n: EditorNode) => string, onSelect: (id: string) => void}} state
 */
export function graphChart({ nodes, edges, types, selected, label, onSelect }) {
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
  chart.append(arrowDefs());
  for (const e of edges) {
    const s = at.get(e.source);
    const t = at.get(e.target);
    if (!s || !t) continue;
    const { d, labelAt } = edgePath(s, t);
    chart.append(svg('path', { d, class: 'edge', 'marker-end': 'url(#arrow)', 'data-edge': e.id }));
    if (e.value) chart.append(svg('text', { ...labelAt, class: 'edge-label' }, e.value));
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
    g.addEventListener('click', () => onSelect(n.id));
    chart.append(g);
  }
  return chart;
}

/**
 * The edges as a table, each with a button that calls `onRemove` with it.
 * @param {EditorEdge[]} edges
 * @param {(e: EditorEdge) => void} onRemove
 */
export function edgesTable(edges, onRemove) {
  return table(
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
              onclick: () => onRemove(e),
            },
            'Remove',
          ),
      ],
    ],
    edges,
    'Nothing comes after any step yet: connect the steps below.',
  );
}

/** The rules the definition breaks ("Before saving"), or that it follows them all. */
export function problemsView(/** @type {string[]} */ problems) {
  return problems.length
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
      );
}

/**
 * Scrolls the graph's box (not the page) so that node `id` is in view whole, its start first: a
 * node chosen in the list on a phone, where the graph is wider than the screen.
 */
export function scrollIntoGraph(/** @type {HTMLElement} */ graphBox, /** @type {string} */ id) {
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

/**
 * The workflow's versions to pick from (marked active, or having run): picking one opens it in the
 * editor. Null when it has none yet.
 * @param {string} workflowId
 * @param {Version[]} versions
 * @param {Version | undefined} shown
 */
export function versionPicker(workflowId, versions, shown) {
  if (!versions.length) return null;
  return h(
    'select',
    {
      name: 'version',
      onchange: (/** @type {Event} */ e) =>
        go(`/workflows/${encodeURIComponent(workflowId)}/editor`, {
          version: /** @type {HTMLSelectElement} */ (e.target).value,
        }),
    },
    versions.map((v) =>
      h(
        'option',
        { value: v.id, selected: v.id === shown?.id },
        `${v.name || v.id}${v.active ? ' (active)' : ''}${v.readonly ? ' (has run)' : ''}`,
      ),
    ),
  );
}
