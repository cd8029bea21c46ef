-- Events of the send path are written only where something hears them (issue 26).
-- Four types are written once per recipient of a send: `contact-created` (a send to a new
-- number), `conversation-started`, `message-sent` and `message-status`. Each is written only
-- when the account has a listener for it at the time of the write:
--   - an active webhook subscribed to the type (webhook_enqueue_events queues only those);
--   - `message-status`: an SMPP credential of the account (its ESMEs' receipts, smpp_enqueue_events);
--   - `message-sent`: a live CRM integration (collectPushes pushes sent texts);
--   - `contact-created`: an active workflow or drip started by it (workflow_enqueue_events).
-- Every other type (opt-outs and opt-ins, which reports count; inbound texts; contact updates and
-- removals; closed conversations) is always written. What a message or contact is stays in its
-- own row: the API, the console and the reports read those, never these events.
CREATE FUNCTION sparrow_event_heard(p_account uuid, p_type text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p_type NOT IN ('contact-created', 'conversation-started', 'message-sent', 'message-status')
      OR EXISTS (SELECT 1 FROM webhooks w
                  WHERE w.account_id = p_account AND w.status = 'active' AND p_type = ANY (w.event_types))
      OR (p_type = 'message-status' AND EXISTS (SELECT 1 FROM smpp_credentials c WHERE c.account_id = p_account))
      OR (p_type = 'message-sent' AND EXISTS (SELECT 1 FROM integrations i
                                                WHERE i.account_id = p_account AND i.status <> 'disconnected'))
      OR (p_type = 'contact-created' AND workflow_trigger_active(p_account, 'trigger.contact-created'))
$$;
