-- The published description marks nothing nullable, and a webhook payload is read by the same
-- strict clients as an answer: the message events (message-sent, message-status) leave an unset
-- field out (`jobId`, `campaignId`, `conversation`, `error`, `providerMessageId`, a contact's `id`)
-- instead of carrying null, like every presenter (omitNulls() in src/util). This is the read side
-- of the references the dispatcher stores (0034, 0150, 0210); MESSAGE_EVENT_DATA in
-- src/db/queries/messages.ts is the write side and builds the same shape.
CREATE OR REPLACE FUNCTION sparrow_event_payload(e events) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN NOT (e.data ? 'hydrate') THEN e.data
    WHEN e.data ->> 'hydrate' = 'conversation' THEN coalesce((
      SELECT jsonb_build_object(
        'conversation', jsonb_strip_nulls(jsonb_build_object(
          'id', cv.id, 'contact', jsonb_build_object('id', cv.contact_id),
          'phoneNumber', sparrow_phone_number_ref(cv.account_id, cv.phone_number_id), 'closed', false)),
        'reopened', false)
      FROM conversations cv
      WHERE cv.account_id = e.account_id AND cv.id = (e.data -> 'conversation' ->> 'id')::uuid
    ), e.data - 'hydrate')
    ELSE coalesce((
      SELECT sparrow_omit_nulls(jsonb_build_object(
        'message', sparrow_omit_nulls(jsonb_build_object(
          'id', m.id, 'jobId', m.job_id, 'campaignId', m.campaign_id,
          'conversation', CASE WHEN m.conversation_id IS NOT NULL THEN jsonb_build_object('id', m.conversation_id) END,
          'phoneNumber', m.from_number, 'to', m.to_number, 'outgoing', m.outgoing, 'system', m.system,
          'encoding', m.encoding, 'segments', m.segments, 'price', x -> 'price', 'status', x -> 'status',
          'error', x -> 'error', 'providerMessageId', x -> 'providerMessageId')),
        'contact', sparrow_omit_nulls(jsonb_build_object(
          'id', m.contact_id, 'mobile', sparrow_contact_mobile(m.account_id, m.contact_id, m.to_number))),
        'status', x -> 'status',
        'error', x -> 'error'))
      FROM messages m, LATERAL (SELECT e.data -> 'message' AS x) d
      WHERE m.account_id = e.account_id AND m.id = (e.data -> 'message' ->> 'id')::uuid
    ), e.data - 'hydrate') END
$$;
