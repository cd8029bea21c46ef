-- Message events written by the dispatcher carry a reference, not a copy, of their message.
--
-- Every message gets two events (message-sent, then message-status); copying the whole message
-- into each (about 550 bytes of JSON) made the event rows the largest write of the send path.
-- Such an event's data is now {"hydrate": true, "message": {id, status, error, price,
-- providerMessageId}}: the fields that can change later, as they were when it happened. The rest of
-- a message (sender, recipient, text, segments, job, conversation, contact) never changes once it
-- is queued, so sparrow_event_payload() rebuilds the published payload from the row when the event
-- is read (webhook delivery, replay), identical to the copy that used to be stored.
CREATE FUNCTION sparrow_event_payload(e events) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN NOT (e.data ? 'hydrate') THEN e.data ELSE coalesce((
    SELECT jsonb_build_object(
      'message', jsonb_build_object(
        'id', m.id, 'jobId', m.job_id, 'campaignId', m.campaign_id,
        'conversation', jsonb_build_object('id', m.conversation_id),
        'phoneNumber', m.from_number, 'to', m.to_number, 'outgoing', m.outgoing, 'system', m.system,
        'encoding', m.encoding, 'segments', m.segments, 'price', x -> 'price', 'status', x -> 'status',
        'error', x -> 'error', 'providerMessageId', x -> 'providerMessageId'),
      'contact', jsonb_build_object('id', m.contact_id, 'mobile', m.to_number),
      'status', x -> 'status',
      'error', x -> 'error')
    FROM messages m, LATERAL (SELECT e.data -> 'message' AS x) d
    WHERE m.account_id = e.account_id AND m.id = (e.data -> 'message' ->> 'id')::uuid
  ), e.data - 'hydrate') END
$$;
