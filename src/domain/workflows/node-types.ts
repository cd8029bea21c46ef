import { MAX_TEXT_LENGTH } from '../../messaging/text-rules.ts';
import { MAX_ATTRIBUTE_KEY_LENGTH } from '../../schemas/limits.ts';

/** A Node property: one config field of a node type, as an editor would render it. */
export interface NodeProperty {
  type: string;
  name: string;
  label: string;
  helperText: string;
  link: string;
  mandatory: boolean;
  args: string[];
  options: { value: string; label: string }[];
  min?: number;
  max?: number;
  defaultValue: string;
  conditions: { property: string; comparator: string; value: string }[];
}

/** An outgoing-edge rule of a node type (`value.value` is the edge value it stands for). */
export interface EdgeRule {
  type: 'standard' | 'timeout';
  value: { mandatory: boolean; editable: boolean; value: string; default: string };
  multiple: boolean;
  defaultEdge: boolean;
}

/** The Node type shape: what a node of this kind does, its config and its outgoing-edge rules. */
export interface NodeType {
  id: string;
  type: 'trigger' | 'action' | 'condition';
  name: string;
  group: string;
  label: string;
  description: string;
  icon: string;
  color: string;
  status: 'active';
  supportLink: string;
  supportsReenrollment: boolean;
  properties: NodeProperty[];
  outputs: { path: string; name: string; dataType: string; default: boolean }[];
  validation: {
    /** `exactly` or `max`: how numEdges bounds the node's outgoing edges. */
    numEdgeCondition: 'exactly' | 'max';
    numEdges: number;
    edges: EdgeRule[];
  };
}

// The documentation page in this repository that describes every node type.
const SUPPORT = 'docs/workflows.md#node-types';

function prop(
  type: string,
  name: string,
  label: string,
  mandatory: boolean,
  extra: Partial<NodeProperty> = {},
): NodeProperty {
  return {
    type,
    name,
    label,
    helperText: '',
    link: '',
    mandatory,
    args: [],
    options: [],
    defaultValue: '',
    conditions: [],
    ...extra,
  };
}

const delayProp = (label: string) =>
  prop('delay', 'delay', label, true, {
    helperText: 'An object {days, hours, minutes} of non-negative integers; more than zero in total.',
  });

function branch(value: 'true' | 'false', type: EdgeRule['type'], defaultEdge: boolean): EdgeRule {
  return {
    type,
    value: { mandatory: true, editable: false, value, default: value },
    multiple: false,
    defaultEdge,
  };
}

const NEXT: EdgeRule = {
  type: 'standard',
  value: { mandatory: false, editable: true, value: '', default: '' },
  multiple: false,
  defaultEdge: true,
};

type Base = Omit<NodeType, 'status' | 'supportLink' | 'outputs' | 'validation' | 'properties'> &
  Partial<Pick<NodeType, 'outputs' | 'validation' | 'properties'>>;

function nodeType(t: Base): NodeType {
  const validation: NodeType['validation'] =
    t.type === 'trigger'
      ? { numEdgeCondition: 'exactly', numEdges: 1, edges: [NEXT] }
      : { numEdgeCondition: 'max', numEdges: 1, edges: [NEXT] };
  return {
    status: 'active',
    supportLink: SUPPORT,
    properties: [],
    outputs: [],
    validation,
    ...t,
  };
}

const listProp = prop('list', 'listId', 'List', true, { helperText: 'The id of one of your lists.' });
const maxDurationProp = prop('number', 'maxDuration', 'End after (days)', false, {
  helperText: 'Days after entry at which a run still going ends (stopped, as expired).',
  min: 1,
  max: 3650,
});

/** Every node type a definition can use (GET …/workflows/nodetypes), by id. */
export const NODE_TYPES: readonly NodeType[] = [
  nodeType({
    id: 'trigger.list-joined',
    type: 'trigger',
    name: 'List joined',
    group: 'Triggers',
    label: 'When a contact joins a list',
    description: 'Enrolls a contact when it is added to the list `listId`.',
    icon: 'list',
    color: '#2563eb',
    supportsReenrollment: true,
    properties: [listProp, maxDurationProp],
  }),
  nodeType({
    id: 'trigger.contact-created',
    type: 'trigger',
    name: 'Contact created',
    group: 'Triggers',
    label: 'When a contact is created',
    description: 'Enrolls every new contact of the account.',
    icon: 'user-plus',
    color: '#2563eb',
    supportsReenrollment: false,
    properties: [maxDurationProp],
  }),
  nodeType({
    id: 'trigger.keyword',
    type: 'trigger',
    name: 'Keyword',
    group: 'Triggers',
    label: 'When a contact texts a keyword',
    description:
      'Enrolls the sender of an inbound text that contains `keyword` as a whole word, in any case.',
    icon: 'message-circle',
    color: '#2563eb',
    supportsReenrollment: true,
    properties: [
      prop('basictext', 'keyword', 'Keyword', true, {
        helperText: 'One word: letters, digits, - or _.',
        min: 1,
        max: 50,
      }),
      maxDurationProp,
    ],
  }),
  nodeType({
    id: 'trigger.manual',
    type: 'trigger',
    name: 'Manual',
    group: 'Triggers',
    label: 'When enrolled through the API',
    description: 'Enrolls the contacts named to POST …/workflows/{id}/enrollments.',
    icon: 'hand',
    color: '#2563eb',
    supportsReenrollment: true,
    properties: [maxDurationProp],
  }),
  nodeType({
    id: 'action.send-message',
    type: 'action',
    name: 'Send message',
    group: 'Actions',
    label: 'Send a text',
    description:
      'Sends `message` (merge fields allowed, and `media`: up to 10 {url}) to the contact from a ' +
      'number of the group `id` (the default group when absent; one number per contact), through ' +
      'the normal send path. Held until 8:00 in the recipient’s time zone during quiet hours.',
    icon: 'send',
    color: '#16a34a',
    supportsReenrollment: true,
    properties: [
      prop('basictext', 'message', 'Message', true, { min: 1, max: MAX_TEXT_LENGTH }),
      prop('group', 'id', 'Sender group', false, { helperText: 'The id of a phone-number group.' }),
      prop('media', 'media', 'Media', false, { helperText: 'Up to 10 items {url}: absolute http(s) URLs.' }),
    ],
  }),
  nodeType({
    id: 'action.wait',
    type: 'action',
    name: 'Wait',
    group: 'Timing',
    label: 'Wait for a while',
    description: 'Holds the contact for `delay` before the next node.',
    icon: 'clock',
    color: '#9333ea',
    supportsReenrollment: true,
    properties: [delayProp('Wait for')],
  }),
  nodeType({
    id: 'condition.replied',
    type: 'condition',
    name: 'Replied',
    group: 'Conditions',
    label: 'Wait for a reply',
    description:
      'Waits up to `delay` for an inbound text from the contact: the `true` edge on a reply, the ' +
      '`false` (timeout) edge when the time runs out.',
    icon: 'corner-down-left',
    color: '#ea580c',
    supportsReenrollment: true,
    properties: [delayProp('Wait at most')],
    outputs: [{ path: 'replied', name: 'Replied', dataType: 'boolean', default: false }],
    validation: {
      numEdgeCondition: 'exactly',
      numEdges: 2,
      edges: [branch('true', 'standard', false), branch('false', 'timeout', true)],
    },
  }),
  nodeType({
    id: 'condition.attribute',
    type: 'condition',
    name: 'Attribute',
    group: 'Conditions',
    label: 'Check a contact attribute',
    description:
      'Compares the contact attribute `attribute` with `value` (numbers numerically when both are ' +
      'numbers, else as text): the `true` or the `false` edge.',
    icon: 'git-branch',
    color: '#ea580c',
    supportsReenrollment: true,
    properties: [
      prop('basictext', 'attribute', 'Attribute', true, { min: 1, max: MAX_ATTRIBUTE_KEY_LENGTH }),
      prop('select', 'comparator', 'Comparator', true, {
        options: ['=', '!=', '<', '<=', '>', '>='].map((c) => ({ value: c, label: c })),
        defaultValue: '=',
      }),
      prop('basictext', 'value', 'Value', true, { max: 500 }),
    ],
    outputs: [{ path: 'matches', name: 'Matches', dataType: 'boolean', default: false }],
    validation: {
      numEdgeCondition: 'exactly',
      numEdges: 2,
      edges: [branch('true', 'standard', false), branch('false', 'standard', true)],
    },
  }),
  nodeType({
    id: 'action.add-to-list',
    type: 'action',
    name: 'Add to list',
    group: 'Actions',
    label: 'Add the contact to a list',
    description: 'Adds the contact to the list `listId` (a static list).',
    icon: 'list-plus',
    color: '#16a34a',
    supportsReenrollment: true,
    properties: [listProp],
  }),
  nodeType({
    id: 'action.remove-from-list',
    type: 'action',
    name: 'Remove from list',
    group: 'Actions',
    label: 'Remove the contact from a list',
    description: 'Removes the contact from the list `listId`.',
    icon: 'list-minus',
    color: '#16a34a',
    supportsReenrollment: true,
    properties: [listProp],
  }),
  nodeType({
    id: 'action.update-attribute',
    type: 'action',
    name: 'Update attribute',
    group: 'Actions',
    label: 'Set a contact attribute',
    description: 'Sets the contact attribute `attribute` to `value` (text).',
    icon: 'edit',
    color: '#16a34a',
    supportsReenrollment: true,
    properties: [
      prop('basictext', 'attribute', 'Attribute', true, { min: 1, max: MAX_ATTRIBUTE_KEY_LENGTH }),
      prop('basictext', 'value', 'Value', true, { max: 500 }),
    ],
  }),
  nodeType({
    id: 'action.end',
    type: 'action',
    name: 'End',
    group: 'Actions',
    label: 'End the workflow',
    description: 'Completes the run.',
    icon: 'square',
    color: '#64748b',
    supportsReenrollment: true,
    validation: { numEdgeCondition: 'exactly', numEdges: 0, edges: [] },
  }),
];

const BY_ID = new Map(NODE_TYPES.map((t) => [t.id, t]));

/** The node type with this id, if there is one. */
export function nodeTypeOf(id: string): NodeType | undefined {
  return BY_ID.get(id);
}

/** Node types whose waits hold a run (a cycle through one of them is allowed). */
export const WAITING_TYPES = new Set(['action.wait', 'condition.replied']);
