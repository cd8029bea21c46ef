-- The events trigger that queues workflow triggers (0090) asked workflow_trigger_active once per
-- contact-created event: a 2,000-recipient send to new mobiles searched the account's workflow
-- definitions 2,000 times for the same answer (about 7 µs each, most of the trigger's cost, for
-- an account with no workflow at all). The answers are now worked out once per account of the
-- statement's events, then joined; which events are queued is unchanged. A statement with no event
-- of the three kinds returns before any of it.
CREATE OR REPLACE FUNCTION workflow_enqueue_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- Event data is any JSON: only text of this shape is cast (a trigger must never fail an event insert).
  uuid_re constant text := '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_events WHERE type IN ('contact-created', 'message-received', 'contact-opt-out')) THEN
    RETURN NULL;
  END IF;
  INSERT INTO workflow_trigger_queue (account_id, kind, contact_id, text)
  WITH acct AS MATERIALIZED (
    SELECT d.account_id,
           workflow_trigger_active(d.account_id, 'trigger.contact-created') AS on_created,
           workflow_trigger_active(d.account_id, 'trigger.keyword') AS on_keyword
      FROM (SELECT DISTINCT account_id FROM new_events
             WHERE type IN ('contact-created', 'message-received', 'contact-opt-out')) d
  )
  SELECT e.account_id, e.type, e.contact_id, e.text
    FROM (SELECT n.account_id, n.type, a.on_keyword,
                 CASE WHEN c.id ~ uuid_re THEN c.id::uuid END AS contact_id,
                 CASE WHEN n.type = 'message-received' THEN n.data -> 'message' ->> 'message' END AS text
            FROM new_events n
            JOIN acct a ON a.account_id = n.account_id
           CROSS JOIN LATERAL (SELECT CASE WHEN n.type = 'contact-created' THEN n.data ->> 'id'
                                           ELSE n.data -> 'contact' ->> 'id' END AS id) c
           WHERE (n.type = 'contact-created' AND a.on_created)
              OR n.type IN ('message-received', 'contact-opt-out')) e
   WHERE e.contact_id IS NOT NULL
     AND CASE e.type
           WHEN 'contact-created' THEN true
           WHEN 'message-received' THEN e.on_keyword OR workflow_contact_live(e.account_id, e.contact_id)
           ELSE workflow_contact_live(e.account_id, e.contact_id)
         END;
  RETURN NULL;
END $$;
