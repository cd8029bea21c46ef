-- The published shapes (docs/interface.md, "Compatibility"): inside a Message the contact's `mobile`
-- is the Contact's mobile object, and a Conversation's `phoneNumber` is a phone-number object, in
-- API answers and in webhook payloads alike. Both are built here, once, and read by the message
-- and conversation views (src/db/queries) and by sparrow_event_payload(). Unset fields are left
-- out (the published description marks nothing nullable).

-- The Contact's `mobile` {country, number, verified, valid, lineType} when the contact still has
-- `number`; otherwise (contact gone or renumbered) the number the message went to or came from.
CREATE FUNCTION sparrow_contact_mobile(p_account uuid, p_contact uuid, p_number text)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(
    (SELECT jsonb_strip_nulls(jsonb_build_object(
              'country', c.mobile_country,
              'number', c.mobile_number,
              'verified', to_char(c.mobile_verified_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              'valid', c.mobile_valid,
              'lineType', c.mobile_line_type))
       FROM contacts c
      WHERE c.account_id = p_account AND c.id = p_contact AND c.mobile_number = p_number),
    CASE WHEN p_number IS NOT NULL THEN jsonb_build_object('number', p_number) END)
$$;

-- A conversation's `phoneNumber`: our number as an object {id, number, country, name, type,
-- status, active}; NULL when the number is gone.
CREATE FUNCTION sparrow_phone_number_ref(p_account uuid, p_number_id uuid)
RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
           'id', n.id, 'number', n.number, 'country', n.country, 'name', n.name, 'type', n.type,
           'status', n.status, 'active', n.status = 'active'))
    FROM phone_numbers n
   WHERE n.account_id = p_account AND n.id = p_number_id
$$;

-- The same payloads as migration 0150, with the two objects above.
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
      SELECT jsonb_build_object(
        'message', jsonb_build_object(
          'id', m.id, 'jobId', m.job_id, 'campaignId', m.campaign_id,
          'conversation', jsonb_build_object('id', m.conversation_id),
          'phoneNumber', m.from_number, 'to', m.to_number, 'outgoing', m.outgoing, 'system', m.system,
          'encoding', m.encoding, 'segments', m.segments, 'price', x -> 'price', 'status', x -> 'status',
          'error', x -> 'error', 'providerMessageId', x -> 'providerMessageId'),
        'contact', jsonb_build_object(
          'id', m.contact_id, 'mobile', sparrow_contact_mobile(m.account_id, m.contact_id, m.to_number)),
        'status', x -> 'status',
        'error', x -> 'error')
      FROM messages m, LATERAL (SELECT e.data -> 'message' AS x) d
      WHERE m.account_id = e.account_id AND m.id = (e.data -> 'message' ->> 'id')::uuid
    ), e.data - 'hydrate') END
$$;
