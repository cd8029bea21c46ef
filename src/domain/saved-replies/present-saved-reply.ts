import type { Static } from '@sinclair/typebox';
import type { SavedReplyRow } from '../../db/queries/saved-replies.ts';
import type { SavedReply as SavedReplySchema } from '../../schemas/conversations.ts';
import { stamp } from '../actor.ts';

/** A saved reply as the API shows it. */
export type SavedReply = Static<typeof SavedReplySchema>;

/** Most saved replies an account keeps (CONV-006 beyond): the inbox's menu of them stays short. */
export const MAX_SAVED_REPLIES = 200;

export function presentSavedReply(r: SavedReplyRow): SavedReply {
  return {
    id: r.id,
    name: r.name,
    text: r.text,
    created: stamp(r.created_at, r.created_by),
    updated: stamp(r.updated_at, r.updated_by),
  };
}
