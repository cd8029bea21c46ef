import { type TSchema, Type } from '@sinclair/typebox';
import { AuditStamp, IdParam, LiteralUnion, NamedPageQuery, PageQuery } from './common.ts';

// Null first: with type coercion on, a null tried against a string branch first would become "".
const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);
const open = { additionalProperties: true };
const timestamp = Type.String({ format: 'date-time' });

const NodeProperty = Type.Object({
  type: Type.String({ description: '`basictext`, `select`, `delay`, `list`, `group`, `number` or `media`.' }),
  name: Type.String(),
  label: Type.String(),
  helperText: Type.String(),
  link: Type.String(),
  mandatory: Type.Boolean(),
  args: Type.Array(Type.String()),
  options: Type.Array(Type.Object({ value: Type.String(), label: Type.String() })),
  min: Type.Optional(Type.Integer()),
  max: Type.Optional(Type.Integer()),
  defaultValue: Type.String(),
  conditions: Type.Array(
    Type.Object({ property: Type.String(), comparator: Type.String(), value: Type.String() }),
  ),
});

/** The Node type shape (GET …/workflows/nodetypes, and each node's `type` in responses). */
export const NodeType = Type.Object({
  id: Type.String({ description: 'e.g. `trigger.list-joined`, `action.send-message`, `condition.replied`.' }),
  type: Type.String({ description: '`trigger`, `action` or `condition`.' }),
  name: Type.String(),
  group: Type.String(),
  label: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  color: Type.String(),
  status: Type.String(),
  supportLink: Type.String(),
  supportsReenrollment: Type.Boolean({
    description: 'On a trigger: whether a contact that entered before can enter again.',
  }),
  properties: Type.Array(NodeProperty),
  outputs: Type.Array(
    Type.Object({
      path: Type.String(),
      name: Type.String(),
      dataType: Type.String(),
      default: Type.Boolean(),
    }),
  ),
  validation: Type.Object({
    numEdgeCondition: Type.String({ description: '`exactly` or `max`.' }),
    numEdges: Type.Integer(),
    edges: Type.Array(
      Type.Object({
        type: Type.String({ description: '`standard` or `timeout`.' }),
        value: Type.Object({
          mandatory: Type.Boolean(),
          editable: Type.Boolean(),
          value: Type.String(),
          default: Type.String(),
        }),
        multiple: Type.Boolean(),
        defaultEdge: Type.Boolean(),
      }),
    ),
  }),
});

/** The Edge shape. */
export const Edge = Type.Object({
  id: Type.String(),
  type: Type.String({ description: '`standard`, or `timeout` for the time-out edge of condition.replied.' }),
  source: Type.String(),
  target: Type.String(),
  value: Type.String({ description: "For a condition's edges `true` or `false`." }),
});

const Property = Type.Object({
  name: Type.String(),
  dataType: Type.String(),
  created: Type.Object({ at: timestamp }),
});

const Version = Type.Object({
  id: Type.String(),
  name: Type.String(),
  definition: Type.Object({
    nodes: Type.Array(
      Type.Object({
        id: Type.String(),
        type: NodeType,
        config: Type.Object({}, { ...open, description: "The node's settings, per its type's properties." }),
      }),
    ),
    edges: Type.Array(Edge),
    properties: Type.Array(Property),
  }),
  created: AuditStamp,
  updated: AuditStamp,
  readonly: Type.Boolean({ description: 'True once a contact has entered it: its definition is frozen.' }),
  active: Type.Optional(timestamp),
  lastActive: Type.Optional(timestamp),
});

/** The Workflow shape. */
export const Workflow = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created: AuditStamp,
  updated: AuditStamp,
  versions: Type.Array(Version),
});

const id = Type.String({ minLength: 1, maxLength: 100 });

const NodeInput = Type.Object({
  id,
  type: Type.Optional(
    Type.Union(
      [
        Type.Object({ id: Type.Optional(Type.String({ maxLength: 100 })) }, open),
        Type.String({ maxLength: 100 }),
      ],
      {
        description:
          'The node type: `{"id": "action.send-message"}` (or the id as a string). Empty (`{}`, as the interface ' +
          'sends it) or absent: a node that exists in the version being edited (for a new version: the ' +
          "workflow's current one, active else newest) keeps its type; a new node needs `type.id` (400 WF-011).",
      },
    ),
  ),
  config: Type.Optional(Type.Object({}, open)),
});

const EdgeInput = Type.Object({
  id: Type.Optional(id),
  source: id,
  target: id,
  value: Type.Optional(Type.String({ maxLength: 100 })),
});

const Definition = Type.Object({
  nodes: Type.Array(NodeInput, { maxItems: 200 }),
  edges: Type.Array(EdgeInput, { maxItems: 400 }),
  properties: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100 }),
        dataType: Type.String({ maxLength: 50 }),
      }),
      { maxItems: 100 },
    ),
  ),
});

const activation = {
  activate: Type.Optional(
    Type.Boolean({ description: '`true`: this becomes THE active version; `false`: deactivate it.' }),
  ),
  active: Type.Optional(
    Nullable(
      Type.Union([Type.Boolean(), timestamp], {
        description:
          'As in the Version shape: a timestamp (or `true`) activates, null (or `false`) deactivates.',
      }),
    ),
  ),
};
const versionName = Type.Optional(Type.String({ maxLength: 200 }));
const name = Type.String({ minLength: 1, maxLength: 200 });

export const CreateWorkflowBody = Type.Object({
  name: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Required unless `templateId` is given (then it defaults to the template's name).",
    }),
  ),
  templateId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Start from this catalog template (GET …/workflowtemplates): its definition becomes version `v1` ' +
        '(inactive). Not together with `versions` (400 WF-019); unknown: 404 WF-018.',
    }),
  ),
  versions: Type.Optional(
    Type.Array(Type.Object({ name: versionName, definition: Definition, ...activation }), { maxItems: 20 }),
  ),
});

export const UpdateWorkflowBody = Type.Object({
  name: Type.Optional(name),
  versions: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 100,
            description: 'An existing version; absent: a new one.',
          }),
        ),
        name: versionName,
        definition: Type.Optional(Definition),
        ...activation,
      }),
      { maxItems: 20 },
    ),
  ),
});

export const EdgeBody = Type.Object({
  success: Type.Optional(Type.Boolean()),
  data: Type.Object({
    id: Type.Optional(id),
    source: Type.Optional(id),
    target: Type.Optional(id),
    value: Type.Optional(Type.String({ maxLength: 100 })),
  }),
});

export const WorkflowListQuery = NamedPageQuery;
export const WorkflowParams = IdParam('accountId', 'workflowId');
export const EdgeParams = IdParam('accountId', 'workflowId', 'edgeId');

const RunStatus = LiteralUnion(['active', 'waiting', 'completed', 'stopped', 'errored'], {
  description: '`active`, `waiting`, `completed`, `stopped` or `errored`.',
});

export const EnrollmentListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(
    Type.Union([
      Type.Literal('active'),
      Type.Literal('waiting'),
      Type.Literal('completed'),
      Type.Literal('stopped'),
      Type.Literal('errored'),
    ]),
  ),
  contactId: Type.Optional(Type.String({ maxLength: 100 })),
});

export const EnrollBody = Type.Object({ contactId: Type.String({ minLength: 1, maxLength: 100 }) });

/** An enrollment of a contact (a run). */
export const Enrollment = Type.Object({
  id: Type.String(),
  workflowId: Type.String(),
  versionId: Type.String(),
  contact: Type.Object({ id: Type.String() }),
  status: RunStatus,
  currentNode: Type.String({ description: 'The node it is at, or ended at.' }),
  trigger: Type.String({
    description: 'What enrolled it: `manual`, `contact-created`, `list-joined` or `message-received`.',
  }),
  dueAt: Type.Optional(
    Type.String({ format: 'date-time', description: 'When it moves on next (live runs).' }),
  ),
  error: Type.Optional(Type.Object({ code: Type.String(), description: Type.String() })),
  entered: timestamp,
  updated: timestamp,
  ended: Type.Optional(timestamp),
});

/** A catalog template (GET …/workflowtemplates): the Workflow shape with a category and a description. */
export const WorkflowTemplate = Type.Object({
  ...Workflow.properties,
  category: Type.String({
    description:
      '`onboarding`, `scheduling`, `compliance`, `marketing`, `feedback`, `ecommerce`, `events`, `billing`, `sales`.',
  }),
  description: Type.String(),
});

export const WorkflowTemplateQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'Matches name, description or category.' })),
  name: Type.Optional(
    Type.String({ maxLength: 200, description: 'Partial, case-insensitive match of the name.' }),
  ),
  category: Type.Optional(Type.String({ maxLength: 50, description: 'Exact category (any case).' })),
  sort: Type.Optional(
    Type.Union(
      [Type.Literal('name'), Type.Literal('-name'), Type.Literal('created'), Type.Literal('-created')],
      { default: 'name', description: '`name`, `created`; `-` for descending.' },
    ),
  ),
});

// Template ids are slugs (`welcome-series`), not UUIDs.
export const WorkflowTemplateParams = Type.Object({
  accountId: Type.String({ minLength: 1 }),
  templateId: Type.String({ minLength: 1, description: 'A catalog template id such as `welcome-series`.' }),
});
