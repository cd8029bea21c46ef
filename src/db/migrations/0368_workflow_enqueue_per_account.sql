-- The events trigger that queues workflow triggers (0090) cost about 7 µs per event of the kinds it
-- reads, whatever the account's workflows: it searched the account's workflow definitions once per
-- contact-created event (workflow_trigger_active), and the planner tested each event's contact id
-- against a regular expression before anything else. A 2,000-recipient send to new mobiles paid
-- both 2,000 times for an account with no workflow at all. Now a statement returns at once when no
-- account of its contact-created events has an active contact-created trigger and it has no
-- inbound text or opt-out; otherwise each account's triggers are looked up once, and only the
-- events chosen have their contact id read. Which events are queued is unchanged.
CREATE OR REPLACE FUNCTION workflow_enqueue_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- Event data is any JSON: only text of this shape is cast (a trigger must never fail an event insert).
  uuid_re constant text := '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_events WHERE type IN ('message-received', 'contact-opt-out'))
     -- OFFSET 0: the planner would otherwise push the test below the DISTINCT, once per event.
     AND NOT EXISTS (SELECT 1 FROM (SELECT DISTINCT account_id FROM new_events WHERE type = 'contact-created' OFFSET 0) d
                      WHERE workflow_trigger_active(d.account_id, 'trigger.contact-created')) THEN
    RETURN NULL;
  END IF;
  INSERT INTO workflow_trigger_queue (account_id, kind, contact_id, text)
  WITH acct AS MATERIALIZED (
    SELECT d.account_id,
           workflow_trigger_active(d.account_id, 'trigger.contact-created') AS on_created,
           workflow_trigger_active(d.account_id, 'trigger.keyword') AS on_keyword
      FROM (SELECT DISTINCT account_id FROM new_events
             WHERE type IN ('contact-created', 'message-received', 'contact-opt-out')) d
  ), chosen AS MATERIALIZED (
    SELECT n.account_id, n.type, n.data, a.on_keyword
      FROM new_events n
      JOIN acct a ON a.account_id = n.account_id
     WHERE (n.type = 'contact-created' AND a.on_created) OR n.type IN ('message-received', 'contact-opt-out')
  )
  SELECT e.account_id, e.type, e.contact_id, e.text
    FROM (SELECT n.account_id, n.type, n.on_keyword,
                 CASE WHEN c.id ~ uuid_re THEN c.id::uuid END AS contact_id,
                 CASE WHEN n.type = 'message-received' THEN n.data -> 'message' ->> 'message' END AS text
            FROM chosen n
           CROSS JOIN LATERAL (SELECT CASE WHEN n.type = 'contact-created' THEN n.data ->> 'id'
                                           ELSE n.data -> 'contact' ->> 'id' END AS id) c) e
   WHERE e.contact_id IS NOT NULL
     AND CASE e.type
           WHEN 'contact-created' THEN true
           WHEN 'message-received' THEN e.on_keyword OR workflow_contact_live(e.account_id, e.contact_id)
           ELSE workflow_contact_live(e.account_id, e.contact_id)
         END;
  RETURN NULL;
END $$;
