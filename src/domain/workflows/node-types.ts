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
    helperText: 'Days, hours and minutes (whole numbers); more than zero in all.',
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

const listProp = prop('list', 'listId', 'List', true, { helperText: 'One of your lists.' });
const maxDurationProp = prop('number', 'maxDuration', 'End after (days)', false, {
  helperText: 'A contact still in the workflow this many days after starting it is taken out.',
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
    description:
      'Starts for a contact when it joins the chosen list (once it has agreed, on a list that asks for confirmation).',
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
    description: 'Starts for every new contact, however it was added.',
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
      'Starts for a contact who texts the keyword, as a word of its own in the text, in capitals or not.',
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
    label: 'Started from the API or by hand',
    description:
      'Starts for the contacts you add on the workflow’s page, or that your own software adds through the API.',
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
      'Texts the contact (the text may use their name and other fields, and carry up to 10 pictures or ' +
      'files) from a number of the chosen sender group, or the default group; a contact always hears ' +
      'from the same number. During quiet hours the text waits until 8:00 where the contact lives.',
    icon: 'send',
    color: '#16a34a',
    supportsReenrollment: true,
    properties: [
      prop('basictext', 'message', 'Message', true, { min: 1, max: MAX_TEXT_LENGTH }),
      prop('group', 'id', 'Sender group', false, {
        helperText: 'The group of numbers the text is sent from (the default group if none).',
      }),
      prop('media', 'media', 'Media', false, {
        helperText: 'Up to 10 pictures or files, each by its web address (https://…).',
      }),
    ],
  }),
  nodeType({
    id: 'action.wait',
    type: 'action',
    name: 'Wait',
    group: 'Timing',
    label: 'Wait for a while',
    description: 'Waits for the time you set, then goes on to the next step.',
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
      'Waits for the contact to text back, for at most the time you set: one path if they reply, ' +
      'the other if the time runs out first.',
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
    label: 'Check a contact field',
    description:
      'Compares one of the contact’s fields with a value (as numbers when both are numbers, otherwise ' +
      'as text): one path if it matches, the other if not.',
    icon: 'git-branch',
    color: '#ea580c',
    supportsReenrollment: true,
    properties: [
      prop('basictext', 'attribute', 'Field', true, { min: 1, max: MAX_ATTRIBUTE_KEY_LENGTH }),
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
    description: 'Adds the contact to the chosen list (a list you fill yourself, not a smart list).',
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
    description: 'Takes the contact off the chosen list.',
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
    label: 'Set a contact field',
    description: 'Sets one of the contact’s fields to the value you give (as text).',
    icon: 'edit',
    color: '#16a34a',
    supportsReenrollment: true,
    properties: [
      prop('basictext', 'attribute', 'Field', true, { min: 1, max: MAX_ATTRIBUTE_KEY_LENGTH }),
      prop('basictext', 'value', 'Value', true, { max: 500 }),
    ],
  }),
  nodeType({
    id: 'action.end',
    type: 'action',
    name: 'End',
    group: 'Actions',
    label: 'End the workflow',
    description: 'The workflow is finished for this contact.',
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
