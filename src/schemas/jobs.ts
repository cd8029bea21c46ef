import { Type } from '@sinclair/typebox';
import { AuditStamp, ErrorObject, LiteralUnion, PageQuery } from './common.ts';
import { CONTACT_ACTIONS } from './enums.ts';
import { MAX_SELECTOR_IDS } from './limits.ts';
import { SendMessagesBody } from './messages.ts';
import { ClosedObject } from './recipient-filters.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** A job as GET …/jobs shows it: the interface's Job, with its kind and counts or progress. */
export const JobResource = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('send'), Type.Literal('contacts')], {
    description:
      '`send`: a send (API send, quick campaign, campaign run); `contacts`: a bulk contact operation.',
  }),
  submitted: Type.Integer({
    description: 'A send: its recipients; a bulk operation: the contacts selected.',
  }),
  queued: Type.Optional(Type.Integer({ description: 'A send: the messages it queued.' })),
  status: Type.String({
    description:
      'A send: `scheduled`, `queued`, `sending`, `completed`, `failed` (with `error`) or `cancelled`. ' +
      'A bulk operation: `queued`, `running`, `completed` or `cancelled`.',
  }),
  price: Type.Number({
    description: 'What the job is charged now (refunds deducted); 0 for bulk operations.',
  }),
  failures: Type.Integer(),
  invalid: Type.Array(Type.Unknown(), {
    description: 'Recipients or ids that could not be taken, each with its `error`.',
  }),
  sendAt: Type.Optional(Type.String({ format: 'date-time', description: 'When a scheduled send runs.' })),
  error: Type.Optional(ErrorObject),
  campaignId: Type.Optional(Type.String({ description: 'The campaign a send ran for.' })),
  counts: Type.Optional(
    Type.Object(
      {
        queued: Count('Waiting for a dispatcher.'),
        sending: Count('Held by a dispatcher.'),
        sent: Count('Accepted by the carrier.'),
        delivered: Count('Delivered.'),
        undelivered: Count('Not delivered.'),
        failed: Count('Failed (not counting those a cancel failed).'),
        cancelled: Count('Failed by a cancel before dispatch (status `failed`, error JOB-001), refunded.'),
      },
      { description: 'A send: its messages by the status GET …/messages shows (a status a receipt moves).' },
    ),
  ),
  action: Type.Optional(LiteralUnion(CONTACT_ACTIONS)),
  listId: Type.Optional(Type.String({ description: 'A bulk list action: the list.' })),
  tags: Type.Optional(Type.Array(Type.String(), { description: 'A bulk tag action: the tags.' })),
  progress: Type.Optional(
    Type.Object(
      {
        total: Count('Contacts selected.'),
        done: Count('Contacts processed so far.'),
        failed: Count('Contacts the action could not be applied to.'),
        changed: Count('Contacts the action changed (the rest already were as asked, or are gone).'),
      },
      { description: 'A bulk contact operation: how far it is.' },
    ),
  ),
  estimatedFinishAt: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'A send (GET …/jobs/{jobId} only): when its last message should go, or null once it has finished. ' +
        'Estimated from what it has left (its messages not yet sent or failed; a scheduled send: its recipients, ' +
        'from `sendAt`), the messages of the account’s earlier open sends on the same numbers, which go first, ' +
        'and its numbers as one pool: their per-second throughput added up, and their daily caps and their groups’ ' +
        '(`dailyCap`, less what today used; days in the account’s time zone, the rest waiting for the next day’s ' +
        'start). It starts from now, or from when the hold its waiting messages share ends (quiet hours, a cap). ' +
        'Not counted: other traffic on the numbers (replies, automation, retries), provider slowness, quiet hours ' +
        'starting later than a day’s start. Computed from the job’s and its numbers’ counts, not its messages.',
    }),
  ),
  cancelled: Type.Optional(AuditStamp),
  created: AuditStamp,
  updated: Type.Optional(AuditStamp),
});

export const JobListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(
    LiteralUnion(['scheduled', 'queued', 'sending', 'running', 'completed', 'failed', 'cancelled']),
  ),
  kind: Type.Optional(Type.Union([Type.Literal('send'), Type.Literal('contacts')])),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Created before.' })),
});

const TagItem = Type.Union([
  Type.String({ minLength: 1, maxLength: 100 }),
  Type.Object({ tag: Type.String({ minLength: 1, maxLength: 100 }), visible: Type.Optional(Type.Boolean()) }),
]);

/** POST …/bulk/contacts. */
export const BulkContactsBody = ClosedObject(
  {
    action: LiteralUnion(CONTACT_ACTIONS, { description: 'What to do to each selected contact.' }),
    selector: ClosedObject(
      {
        ids: Type.Optional(
          Type.Array(Type.String({ maxLength: 64 }), {
            minItems: 1,
            maxItems: MAX_SELECTOR_IDS,
            description: `Contacts by id (at most ${MAX_SELECTOR_IDS}); ids naming no contact are listed in the job's \`invalid\`.`,
          }),
        ),
        filters: SendMessagesBody.properties.filters,
        listId: Type.Optional(Type.String({ description: 'Every member of this list (static or smart).' })),
      },
      { description: "Which contacts: exactly one of `ids`, `filters` (as a send's) or `listId`." },
    ),
    listId: Type.Optional(Type.String({ description: '`addToList` / `removeFromList`: the (static) list.' })),
    tags: Type.Optional(
      Type.Array(TagItem, { minItems: 1, maxItems: 50, description: '`tag` / `untag`: the tags.' }),
    ),
  },
  { description: 'A bulk contact operation.' },
);
