import type { Static } from '@sinclair/typebox';
import type { MessageView } from '../../db/queries/messages.ts';
import type { MessageContactMobile } from '../../schemas/contacts.ts';
import type { Message as MessageSchema } from '../../schemas/messages.ts';
import { omitNulls, omitNullsAs } from '../../util/omit-nulls.ts';
import { stamp } from '../actor.ts';

/**
 * The Message shape of the API (docs/interface.md, the compatibility shapes), plus `encoding`, `jobId`, `campaignId`
 * and `provider`.
 * `phoneNumber` is our number in the exchange: the sender of an outgoing message, the
 * recipient of an incoming one.
 */
export function presentMessage(m: MessageView) {
  // Unset fields are left out, not null: the published description marks nothing nullable.
  return omitNullsAs<Static<typeof MessageSchema>>({
    id: m.id,
    contact: m.contact_id
      ? omitNulls({
          id: m.contact_id,
          firstName: m.contact_first_name,
          lastName: m.contact_last_name,
          email: m.contact_email,
          mobile: m.contact_mobile_object as Static<typeof MessageContactMobile> | null,
        })
      : null,
    conversation: m.conversation_id ? { id: m.conversation_id } : null,
    phoneNumber: m.outgoing ? m.from_number : m.to_number,
    message: m.body,
    template: m.template,
    media: m.media ?? [],
    outgoing: m.outgoing,
    status: m.status,
    encoding: m.encoding,
    segments: m.segments,
    price: m.price,
    read: m.read,
    error: m.error,
    jobId: m.job_id,
    campaignId: m.campaign_id,
    // The provider that took an outgoing message (its route's choice, docs/routing.md): once a carrier accepted it.
    provider: m.outgoing && (m.provider_ref ?? m.provider_message_id) ? m.provider : null,
    created: stamp(m.created_at, m.created_by),
    updated: stamp(m.updated_at, m.created_by),
  });
}

/** The Message shape's type. */
export type Message = ReturnType<typeof presentMessage>;
