-- A bulk send opens up to one conversation per recipient, and each writes `conversation-started`.
-- Building the whole payload per row ({conversation: {id, contact: {id}, phoneNumber, closed},
-- reopened}) was a tenth of the accept statement. Those events now store a reference,
-- {"hydrate": "conversation", "conversation": {"id"}}: a conversation a send opens is open, not
-- reopened, and its contact and number never change, so sparrow_event_payload() rebuilds the
-- published payload from the conversation row when the event is read, identical to the copy.
CREATE OR REPLACE FUNCTION sparrow_event_payload(e events) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN NOT (e.data ? 'hydrate') THEN e.data
    WHEN e.data ->> 'hydrate' = 'conversation' THEN coalesce((
      SELECT jsonb_build_object(
        'conversation', jsonb_build_object(
          'id', cv.id, 'contact', jsonb_build_object('id', cv.contact_id), 'phoneNumber', pn.number, 'closed', false),
        'reopened', false)
      FROM conversations cv
      LEFT JOIN phone_numbers pn ON pn.account_id = cv.account_id AND pn.id = cv.phone_number_id
      WHERE cv.account_id = e.account_id AND cv.id = (e.data -> 'conversation' ->> 'id')::uuid
    ), e.data - 'hydrate')
    ELSE coalesce((
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
