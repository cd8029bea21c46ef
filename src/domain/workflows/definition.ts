import type { StoredDefinition, StoredEdge, StoredNode } from '../../db/queries/workflows.ts';
import { fail } from '../../errors.ts';
import { mediaUrlProblem } from '../../messaging/media-url.ts';
import { MAX_TEXT_LENGTH } from '../../messaging/text-rules.ts';
import { newId } from '../../util/ids.ts';
import { nodeTypeOf, WAITING_TYPES } from './node-types.ts';

export type { StoredDefinition, StoredEdge, StoredNode };

/** A node as a request gives it: `type` names the node type by id (`{id}`; a bare string is accepted too). */
export interface NodeInput {
  id: string;
  type?: object | string;
  config?: object;
}

/** An edge as a request gives it; without an id one is assigned. */
export interface EdgeInput {
  id?: string;
  source: string;
  target: string;
  value?: string;
}

/** A definition as a request gives it. */
export interface DefinitionInput {
  nodes: NodeInput[];
  edges: EdgeInput[];
  properties?: { name: string; dataType: string }[];
}

/** A wait: {days, hours, minutes}. */
export interface Delay {
  days?: number;
  hours?: number;
  minutes?: number;
}

/** The length of a valid delay in seconds. */
export function delaySeconds(d: Delay): number {
  return ((d.days ?? 0) * 24 * 60 + (d.hours ?? 0) * 60 + (d.minutes ?? 0)) * 60;
}

const MAX_DELAY_SECONDS = 366 * 24 * 3600;
const KEYWORD = /^[\p{L}\p{N}_-]{1,50}$/u;
const COMPARATORS = new Set(['=', '!=', '<', '<=', '>', '>=']);

/**
 * The type id a request node names: `type.id` (or `type` as a string). The interface sends `type`
 * empty (`{}`) in requests: then a node that exists in `known` (the version being edited, or the
 * workflow's current version for a new one) keeps its type there; a new node must name one.
 */
function typeIdOf(n: NodeInput, known?: KnownTypes): string {
  if (typeof n.type === 'string') return n.type;
  const id = (n.type as { id?: unknown } | undefined)?.id;
  if (typeof id === 'string' && id !== '') return id;
  const kept = known?.def.nodes.find((k) => k.id === n.id)?.typeId;
  if (kept) return kept;
  return fail(
    'WF-011',
    known
      ? `Node "${n.id}" has no \`type.id\` and is not in ${known.where}, so it is a new node: a new ` +
          'node needs `type.id` (e.g. "type": {"id": "action.send-message"}).'
      : `Node "${n.id}" has no \`type.id\`: a new node needs \`type.id\` ` +
          '(e.g. "type": {"id": "action.send-message"}).',
  );
}

/** Where nodes with an empty `type` take their type from, and how a message names it. */
export interface KnownTypes {
  def: StoredDefinition;
  /** e.g. `the workflow's current version`. */
  where: string;
}

function isDelay(v: unknown): v is Delay {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const d = v as Record<string, unknown>;
  for (const k of ['days', 'hours', 'minutes']) {
    const x = d[k];
    if (x !== undefined && !(Number.isInteger(x) && (x as number) >= 0)) return false;
  }
  const s = delaySeconds(d as Delay);
  return s > 0 && s <= MAX_DELAY_SECONDS;
}

function text(config: Record<string, unknown>, key: string, min: number, max: number): boolean {
  const v = config[key];
  return typeof v === 'string' && v.trim().length >= min && v.length <= max;
}

/** `media` of a send-message node: at most 10 items, each {url} of an absolute http(s) URL. */
function mediaProblem(media: unknown, externalsUrl: string | null): string | undefined {
  if (media === undefined) return undefined;
  const ok =
    Array.isArray(media) &&
    media.length <= 10 &&
    media.every(
      (m) => typeof m === 'object' && m !== null && typeof (m as { url?: unknown }).url === 'string',
    );
  if (!ok) return '`media` must be at most 10 items {url}';
  return media.some((m) => mediaUrlProblem((m as { url: string }).url, externalsUrl))
    ? '`media[].url` must be an absolute http(s) URL on a public host'
    : undefined;
}

/** Checks one node's config against its type; answers the problem, or undefined when valid. */
function configProblem(
  typeId: string,
  c: Record<string, unknown>,
  externalsUrl: string | null,
): string | undefined {
  // Any trigger: `maxDuration`, days after entry at which a run still going ends (stopped, expired).
  if (
    typeId.startsWith('trigger.') &&
    c.maxDuration !== undefined &&
    !(Number.isInteger(c.maxDuration) && (c.maxDuration as number) >= 1 && (c.maxDuration as number) <= 3650)
  )
    return '`maxDuration` must be a whole number of days from 1 to 3650';
  switch (typeId) {
    case 'trigger.list-joined':
    case 'action.add-to-list':
    case 'action.remove-from-list':
      return text(c, 'listId', 1, 100) ? undefined : '`listId` (a list id) is required';
    case 'trigger.keyword':
      return typeof c.keyword === 'string' && KEYWORD.test(c.keyword)
        ? undefined
        : '`keyword` must be one word (letters, digits, - or _; at most 50)';
    case 'action.send-message':
      if (!text(c, 'message', 1, MAX_TEXT_LENGTH))
        return `\`message\` (1..${MAX_TEXT_LENGTH} characters, not blank) is required`;
      if (!(c.id === undefined || text(c, 'id', 1, 100))) return '`id` (the sender group) must be a string';
      return mediaProblem(c.media, externalsUrl);
    case 'action.wait':
    case 'condition.replied':
      return isDelay(c.delay)
        ? undefined
        : '`delay` must be {days, hours, minutes}: non-negative integers, more than zero and at most 366 days in total';
    case 'condition.attribute':
      if (!text(c, 'attribute', 1, 200)) return '`attribute` is required';
      if (typeof c.comparator !== 'string' || !COMPARATORS.has(c.comparator))
        return '`comparator` must be one of = != < <= > >=';
      return typeof c.value === 'string' && c.value.length <= 500 ? undefined : '`value` (text) is required';
    case 'action.update-attribute':
      if (!text(c, 'attribute', 1, 200)) return '`attribute` is required';
      return typeof c.value === 'string' && c.value.length <= 500 ? undefined : '`value` (text) is required';
    default:
      return undefined;
  }
}

/** Whether the graph has a cycle that passes through no waiting node (it would spin forever). */
function spinningCycle(nodes: StoredNode[], edges: StoredEdge[]): string | undefined {
  const waits = new Set(nodes.filter((n) => WAITING_TYPES.has(n.typeId)).map((n) => n.id));
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (waits.has(e.source) || waits.has(e.target)) continue;
    next.set(e.source, [...(next.get(e.source) ?? []), e.target]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const visit = (id: string): string | undefined => {
    state.set(id, 'open');
    for (const t of next.get(id) ?? []) {
      if (state.get(t) === 'open') return t;
      if (!state.has(t)) {
        const found = visit(t);
        if (found) return found;
      }
    }
    state.set(id, 'done');
    return undefined;
  };
  for (const n of nodes) {
    if (state.has(n.id)) continue;
    const found = visit(n.id);
    if (found) return found;
  }
  return undefined;
}

/**
 * Validates a definition and turns it into its stored form (edge ids assigned, property stamps
 * kept from `previous`). Each problem is a 400 with its code and the node or edge it concerns:
 * WF-010 duplicate node id, WF-011 unknown node type, WF-012 edge to a missing node / duplicate
 * edge id, WF-013 not exactly one trigger, WF-014 invalid node config, WF-015 the node type's edge
 * rules, WF-016 a cycle without a wait. A node with an empty `type` takes its type from `known`
 * (WF-011 when it is not there). Media URLs of send-message nodes must be public, or the service's
 * own files under `externalsUrl` (its EXTERNALS_URL; null for the built-in templates, which name none).
 */
export function normalizeDefinition(
  input: DefinitionInput,
  externalsUrl: string | null,
  previous?: StoredDefinition,
  known?: KnownTypes,
): StoredDefinition {
  const ids = new Set<string>();
  const nodes: StoredNode[] = input.nodes.map((n) => {
    if (ids.has(n.id)) fail('WF-010', `Node id "${n.id}" is used twice.`);
    ids.add(n.id);
    const typeId = typeIdOf(n, known);
    if (!nodeTypeOf(typeId)) fail('WF-011', `Node "${n.id}" has an unknown type "${typeId}".`);
    const config = { ...(n.config ?? {}) } as Record<string, unknown>;
    // Ids are matched as stored (lower-case uuids), also by the enrollment triggers in SQL.
    for (const key of typeId === 'action.send-message' ? ['id'] : ['listId']) {
      if (typeof config[key] === 'string') config[key] = (config[key] as string).toLowerCase();
    }
    const problem = configProblem(typeId, config, externalsUrl);
    if (problem) fail('WF-014', `Node "${n.id}" (${typeId}): ${problem}.`);
    return { id: n.id, typeId, config };
  });
  const triggers = nodes.filter((n) => nodeTypeOf(n.typeId)?.type === 'trigger');
  if (triggers.length !== 1)
    fail('WF-013', `A definition needs exactly one trigger node; it has ${triggers.length}.`);

  const edgeIds = new Set<string>();
  const edges: StoredEdge[] = input.edges.map((e) => {
    const id = e.id ?? newId();
    if (edgeIds.has(id)) fail('WF-012', `Edge id "${id}" is used twice.`);
    edgeIds.add(id);
    for (const end of [e.source, e.target]) {
      if (!ids.has(end)) fail('WF-012', `Edge "${id}" refers to a missing node "${end}".`);
    }
    return { id, source: e.source, target: e.target, value: e.value ?? '' };
  });
  checkEdgeRules(nodes, edges);
  const loop = spinningCycle(nodes, edges);
  if (loop) fail('WF-016', `Node "${loop}" is on a cycle without a wait (action.wait or condition.replied).`);

  const stamps = new Map((previous?.properties ?? []).map((p) => [p.name, p.created]));
  const now = new Date().toISOString();
  const properties = (input.properties ?? []).map((p) => ({
    name: p.name,
    dataType: p.dataType,
    created: stamps.get(p.name) ?? { at: now },
  }));
  return { nodes, edges, properties };
}

/** WF-015: triggers have no incoming edge; each node's outgoing edges follow its type's rules. */
function checkEdgeRules(nodes: StoredNode[], edges: StoredEdge[]): void {
  for (const n of nodes) {
    const type = nodeTypeOf(n.typeId);
    if (!type) continue;
    if (type.type === 'trigger') {
      const into = edges.find((e) => e.target === n.id);
      if (into) fail('WF-015', `Edge "${into.id}" leads into the trigger node "${n.id}".`);
    }
    const out = edges.filter((e) => e.source === n.id);
    const { numEdgeCondition, numEdges, edges: rules } = type.validation;
    const bad = numEdgeCondition === 'exactly' ? out.length !== numEdges : out.length > numEdges;
    if (bad) {
      fail(
        'WF-015',
        `Node "${n.id}" (${n.typeId}) needs ${numEdgeCondition === 'exactly' ? 'exactly' : 'at most'} ` +
          `${numEdges} outgoing edge(s); it has ${out.length}.`,
      );
    }
    const fixed = rules.filter((r) => !r.value.editable).map((r) => r.value.value);
    if (fixed.length === 0) continue;
    const seen = new Set<string>();
    for (const e of out) {
      if (!fixed.includes(e.value) || seen.has(e.value)) {
        fail('WF-015', `Edge "${e.id}" from "${n.id}" needs a distinct value among: ${fixed.join(', ')}.`);
      }
      seen.add(e.value);
    }
  }
}

/** The outgoing edge a run follows from a node: the one with this value, else the only/default one. */
export function nextEdge(def: StoredDefinition, nodeId: string, value?: string): StoredEdge | undefined {
  const out = def.edges.filter((e) => e.source === nodeId);
  if (value === undefined) return out[0];
  return out.find((e) => e.value === value);
}
