-- `message-sent` / `message-status` events carry the Message's `provider` where the API shows it
-- (present-message.ts): an outgoing message a carrier accepted (it has the carrier's id). The
-- dispatcher's events are references hydrated here from the message row; a message's provider no
-- longer changes once a carrier accepted it, so events written before this read it the same way.
-- As in 0355, plus `provider`.
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
          'error', x -> 'error', 'providerMessageId', x -> 'providerMessageId',
          'provider', CASE WHEN m.outgoing AND jsonb_typeof(x -> 'providerMessageId') = 'string' THEN m.provider END)),
        'contact', sparrow_omit_nulls(jsonb_build_object(
          'id', m.contact_id, 'mobile', sparrow_contact_mobile(m.account_id, m.contact_id, m.to_number))),
        'status', x -> 'status',
        'error', x -> 'error'))
      FROM messages m, LATERAL (SELECT e.data -> 'message' AS x) d
      WHERE m.account_id = e.account_id
        AND m.id = CASE WHEN e.data -> 'message' ->> 'id' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
                        THEN (e.data -> 'message' ->> 'id')::uuid END
    ), e.data - 'hydrate') END
$$;
