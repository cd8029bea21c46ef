// The workflow editor's graph (pages/workflow-editor.js draws and edits it): the node-type
// catalog's shapes, the layout in columns by distance from the trigger, the SVG elements, the
// rules a graph is checked against before saving, and the form of a node's settings.
import { field, h, isolate } from '../dom.js';

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

export const NODE_W = 170;
export const NODE_H = 52;
const COL_W = 220;
const ROW_H = 84;
export const PAD = 16;
const NS = 'http://www.w3.org/2000/svg';

/** A text cut to fit a node's box. */
export const clip = (/** @type {string} */ s) => (s.length > 22 ? `${s.slice(0, 21)}…` : s);

/** An SVG element with attributes (values set as attributes, never parsed as markup). */
export function svg(
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
export function edgeValues(/** @type {NodeType | undefined} */ type) {
  const fixed = (type?.validation.edges ?? []).filter((r) => !r.value.editable).map((r) => r.value.value);
  return fixed.length ? fixed : [''];
}

/**
 * The definition the API takes, from the editor's nodes and edges (an edge's empty value left out).
 * @param {EditorNode[]} nodes
 * @param {EditorEdge[]} edges
 */
export function definitionOf(nodes, edges) {
  return {
    nodes: nodes.map((n) => ({ id: n.id, type: { id: n.typeId }, config: n.config })),
    edges: edges.map((e) => ({
      id: e.id,
      source: e.source,
      target: e.target,
      ...(e.value ? { value: e.value } : {}),
    })),
  };
}

/**
 * A node's settings form, built from its type's properties; `onchange(config)` on every edit.
 * @param {EditorNode} node
 * @param {NodeType} type
 * @param {{lists: {id: string, name: string}[], groups: {id: string, name: string}[]}} choices
 * @param {(config: Record<string, any>) => void} onchange
 */
export function configForm(node, type, choices, onchange) {
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
