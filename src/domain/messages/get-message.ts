import type { Queryable } from '../../db/client.ts';
import { findMessageView } from '../../db/queries/messages.ts';
import { fail } from '../../errors.ts';
import { isId } from '../../util/ids.ts';
import { type Message, presentMessage } from './present-message.ts';

/** One message of the account in its API shape; unknown (or another account's) → MSG-001. */
export async function getMessage(db: Queryable, accountId: string, messageId: string): Promise<Message> {
  if (!isId(messageId)) fail('MSG-001');
  const row = await findMessageView(db, accountId, messageId);
  if (!row) fail('MSG-001');
  return presentMessage(row);
}
