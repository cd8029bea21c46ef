import type { Queryable } from '../../db/client.ts';
import { type ContactRow, updateContact } from '../../db/queries/contacts.ts';
import { addListMembers, findList, isSmartList, removeListMember } from '../../db/queries/lists.ts';
import type { StoredNode } from '../../db/queries/workflows.ts';
import { fail } from '../../errors.ts';
import type { PriceTable } from '../../messaging/pricing.ts';
import { isId } from '../../util/ids.ts';
import type { Actor } from '../actor.ts';
import { checkAttributes, rethrowAttributeLimit } from '../contacts/attribute-limits.ts';
import { presentContacts } from '../contacts/get-contact.ts';
import { renderForContact } from '../contacts/merge-values.ts';
import { emitEvent } from '../events/emit.ts';
import { groupSenderPool, senderForContact } from '../numbers/group-sender-pool.ts';
import { queueMessage } from '../send/accept/queue-message.ts';

/** What a node's action did: follow an edge (by value), end, or stop; plus what to record. */
export type ActionOutcome =
  | { next: string | null; messageId?: string }
  | { end: true }
  | { stop: { code: string; description: string } };

/**
 * Sends a send-message node's text to the contact through queueMessage (opt-out, balance, segments
 * and pricing apply; ACCT-002 and GRP-001/GRP-003 throw). An opted-out or blocked contact stops
 * the run; a contact without a valid mobile is CONT-001.
 */
async function sendMessage(
  tx: Queryable,
  contact: ContactRow,
  node: StoredNode,
  by: Actor,
  opts: ActionOptions,
): Promise<ActionOutcome> {
  if (contact.opted_out_at) {
    return { stop: { code: 'CONT-010', description: 'Contact has requested no further communication.' } };
  }
  if (contact.blocked_at) return { stop: { code: 'CONT-011', description: 'Contact is blocked.' } };
  if (!contact.mobile_number || !contact.mobile_valid) fail('CONT-001');
  const groupId = typeof node.config.id === 'string' ? node.config.id : undefined;
  const pool = await groupSenderPool(tx, contact.account_id, groupId);
  // The rule of every send: one contact keeps one conversation (docs/routing.md).
  const sender = await senderForContact(tx, contact.account_id, pool, contact);
  const template = String(node.config.message);
  const media = Array.isArray(node.config.media) ? (node.config.media as { url: string }[]) : [];
  const body = renderForContact(template, contact);
  const row = await queueMessage(
    tx,
    contact.account_id,
    {
      contactId: contact.id,
      phoneNumberId: sender.id,
      from: sender.number,
      to: contact.mobile_number,
      body,
      template,
      media: media.map((m) => ({ url: m.url })),
      quietHours: opts.quietHours,
      prices: opts.prices ?? fail('SYS-500', 'A workflow step that sends needs the price table.'),
    },
    by,
  );
  if (row.status === 'failed' && row.error) return { stop: row.error };
  return { next: null, messageId: row.id };
}

function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** condition.attribute: numbers compare numerically when both sides are numbers, else as text. */
export function compareAttribute(actual: unknown, comparator: string, expected: string): boolean {
  const a = text(actual);
  const numeric =
    a.trim() !== '' &&
    expected.trim() !== '' &&
    Number.isFinite(Number(a)) &&
    Number.isFinite(Number(expected));
  const x: number | string = numeric ? Number(a) : a;
  const y: number | string = numeric ? Number(expected) : expected;
  switch (comparator) {
    case '=':
      return x === y;
    case '!=':
      return x !== y;
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    default:
      return x >= y;
  }
}

async function listAction(tx: Queryable, contact: ContactRow, node: StoredNode): Promise<ActionOutcome> {
  const listId = String(node.config.listId);
  const list = isId(listId) ? await findList(tx, contact.account_id, listId) : undefined;
  if (!list) fail('LIST-001');
  if (node.typeId === 'action.remove-from-list') {
    await removeListMember(tx, contact.account_id, list.id, contact.id);
  } else {
    if (isSmartList(list)) fail('LIST-002');
    await addListMembers(tx, contact.account_id, list.id, [contact.id], !list.double_opt_in?.enabled);
  }
  return { next: null };
}

/**
 * How actions run: whether quiet hours hold the texts they send (automation is marketing), and the
 * service's price table they are priced by (absent only where no step sends: an enrollment runs the
 * trigger and a first wait).
 */
export interface ActionOptions {
  quietHours: boolean;
  prices?: PriceTable;
}

/**
 * Runs the action of a node that does not wait, inside the step's transaction. Expected failures
 * throw an AppError (the caller records it and ends the run as errored).
 */
export async function runAction(
  tx: Queryable,
  contact: ContactRow,
  node: StoredNode,
  by: Actor,
  opts: ActionOptions = { quietHours: false },
): Promise<ActionOutcome> {
  switch (node.typeId) {
    case 'action.send-message':
      return sendMessage(tx, contact, node, by, opts);
    case 'condition.attribute': {
      const actual = contact.attributes?.[String(node.config.attribute)];
      const yes = compareAttribute(actual, String(node.config.comparator), String(node.config.value));
      return { next: yes ? 'true' : 'false' };
    }
    case 'action.add-to-list':
    case 'action.remove-from-list':
      return listAction(tx, contact, node);
    case 'action.update-attribute': {
      const attributes = { [String(node.config.attribute)]: String(node.config.value) };
      checkAttributes(attributes);
      const row = await updateContact(tx, contact.account_id, contact.id, { attributes }, 'set', by).catch(
        rethrowAttributeLimit,
      );
      if (row) {
        const [presented] = await presentContacts(tx, contact.account_id, [row]);
        await emitEvent(tx, contact.account_id, 'contact-updated', presented);
      }
      return { next: null };
    }
    case 'action.end':
      return { end: true };
    default:
      // Triggers: the run just entered; go on.
      return { next: null };
  }
}
