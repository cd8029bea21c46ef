import type { Static } from '@sinclair/typebox';
import type { AutoresponderRow } from '../../db/queries/autoresponders.ts';
import type { Autoresponder as AutoresponderSchema } from '../../schemas/autoresponders.ts';
import { omitNulls } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/** The Autoresponder shape of the API (unset fields left out, as everywhere). */
export function presentAutoresponder(a: AutoresponderRow): Static<typeof AutoresponderSchema> {
  return {
    id: a.id,
    name: a.name,
    ...(a.group_id ? { group: { id: a.group_id, name: a.group_name ?? '' } } : {}),
    trigger:
      a.trigger_type === 'keywords'
        ? { type: a.trigger_type, keywords: a.keywords }
        : { type: a.trigger_type },
    message: { message: a.message, media: a.media },
    active: a.active,
    priority: a.priority,
    stats: omitNulls({
      triggered: Number(a.triggered_count),
      repliesSent: Number(a.replies_sent),
      suppressed: Number(a.suppressed_count),
      lastTriggeredAt: a.last_triggered_at?.toISOString() ?? null,
      lastReplyAt: a.last_reply_at?.toISOString() ?? null,
    }),
    created: stamp(a.created_at, a.created_by),
    updated: stamp(a.updated_at, a.updated_by),
  };
}

/** An autoresponder as the API shows it. */
export type Autoresponder = ReturnType<typeof presentAutoresponder>;
