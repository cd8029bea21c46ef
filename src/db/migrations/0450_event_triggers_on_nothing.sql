-- The outbox triggers of events (SMPP receipts, webhooks) run after every statement that inserts
-- into events, rows or none. Since events are written only where heard (0400) most such statements
-- insert none (an SMPP batch's contact-created and message-status, a flush of dispatch outcomes),
-- and each trigger still ran its queries over the empty transition table: ~0.1 ms a statement for
-- the SMPP one (it first asks whether any SMPP credential exists). Both now return at once when
-- the statement inserted no event.
CREATE OR REPLACE FUNCTION smpp_enqueue_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_events) OR NOT EXISTS (SELECT 1 FROM smpp_credentials) THEN
    RETURN NULL;
  END IF;
  INSERT INTO smpp_outbox (account_id, id, kind, message_id, credential_id, status, error)
  SELECT n.account_id, sparrow_uuidv7(), 'receipt', s.message_id, s.credential_id, x.status, x.error
    FROM new_events n
    CROSS JOIN LATERAL (SELECT coalesce(n.data -> 'message' ->> 'status', n.data ->> 'status') AS status,
                               coalesce(n.data -> 'message' -> 'error', n.data -> 'error') AS error) x
    JOIN smpp_submissions s
      ON s.account_id = n.account_id AND s.message_id = (n.data -> 'message' ->> 'id')::uuid
   WHERE n.type = 'message-status'
     AND x.status IN ('delivered', 'undelivered', 'failed')
     AND (s.receipt_mask = 1 OR (s.receipt_mask = 2 AND x.status <> 'delivered'));
  INSERT INTO smpp_outbox (account_id, id, kind, message_id)
  SELECT n.account_id, sparrow_uuidv7(), 'inbound', (n.data -> 'message' ->> 'id')::uuid
    FROM new_events n
   WHERE n.type = 'message-received'
     AND n.data -> 'message' ->> 'id' IS NOT NULL
     AND EXISTS (SELECT 1 FROM smpp_credentials c WHERE c.account_id = n.account_id);
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION webhook_enqueue_events() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_events) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_event_queue (event_id, account_id)
  SELECT n.id, n.account_id
    FROM new_events n
   WHERE EXISTS (
     SELECT 1 FROM webhooks w
      WHERE w.account_id = n.account_id AND w.status = 'active' AND n.type = ANY (w.event_types));
  RETURN NULL;
END;
$$;
