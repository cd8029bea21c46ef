-- Drip campaigns: a trigger (list join, keyword, new contact) that enters a contact into an
-- ordered series of delayed messages. Executions are the per-contact timers (rows, not
-- setTimeout); the entry queue is fed by triggers in the cause's own transaction.

CREATE TABLE drip_campaigns (
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id              uuid NOT NULL,
  name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description     text,
  trigger_type    text NOT NULL CHECK (trigger_type IN ('list', 'keyword', 'contact-created')),
  list_id         uuid,
  -- Keyword triggers: the one word, upper case (inbound texts are compared case-insensitively).
  keyword         text,
  -- The sender group; NULL = the account's default group at send time.
  group_id        uuid,
  -- Delay before the first message, as given ({days, hours, minutes}).
  trigger_delay   jsonb NOT NULL DEFAULT '{"days": 0, "hours": 0, "minutes": 0}',
  -- Days after entry at which a still-running execution ends (`expired`); NULL = no limit.
  max_duration    integer CHECK (max_duration > 0),
  active          boolean NOT NULL DEFAULT false,
  -- The workflow this drip was migrated into (endpoint 18); a drip is migrated at most once.
  workflow_id     uuid,
  created_at      timestamptz NOT NULL DEFAULT now(),
  created_by      jsonb NOT NULL DEFAULT '{}',
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id),
  CHECK ((trigger_type = 'list') = (list_id IS NOT NULL)),
  CHECK ((trigger_type = 'keyword') = (keyword IS NOT NULL))
);
CREATE INDEX drip_campaigns_created ON drip_campaigns (account_id, created_at DESC, id DESC);
-- The entry worker's lookups: the active drips a cause can start.
CREATE INDEX drip_campaigns_active ON drip_campaigns (account_id, trigger_type) WHERE active;

-- The ordered messages of a drip. `position` orders them; ids stay stable across edits that name them.
CREATE TABLE drip_steps (
  account_id  uuid NOT NULL,
  id          uuid NOT NULL,
  drip_id     uuid NOT NULL,
  position    integer NOT NULL CHECK (position >= 0),
  message     text NOT NULL CHECK (char_length(message) <= 1600),
  -- Delay after the previous step ({days, hours, minutes}).
  delay       jsonb NOT NULL DEFAULT '{"days": 0, "hours": 0, "minutes": 0}',
  media       jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(media) = 'array'),
  PRIMARY KEY (account_id, id),
  UNIQUE (account_id, drip_id, position),
  FOREIGN KEY (account_id, drip_id) REFERENCES drip_campaigns (account_id, id) ON DELETE CASCADE
);

-- One contact's run through a drip. `next_position` is the step to send when `due_at` comes;
-- past the last step, `due_at` ends the reply window (then the run finishes as `completed`).
CREATE TABLE drip_executions (
  account_id      uuid NOT NULL,
  id              uuid NOT NULL,
  drip_id         uuid NOT NULL,
  contact_id      uuid NOT NULL,
  status          text NOT NULL DEFAULT 'active'
                  CHECK (status IN ('active', 'completed', 'engaged', 'opted-out', 'errored', 'stopped', 'expired')),
  next_position   integer NOT NULL DEFAULT 0,
  due_at          timestamptz,
  -- A runner's lease on a due execution; another runner may take it over once it has passed.
  claimed_until   timestamptz,
  -- The step sent (or tried) last: the step an outcome is counted against.
  last_step_id    uuid,
  -- The inbound text that started a keyword drip (not a reply to it).
  trigger_message_id uuid,
  error           jsonb,
  entered_at      timestamptz NOT NULL DEFAULT now(),
  ended_at        timestamptz,
  PRIMARY KEY (account_id, id),
  FOREIGN KEY (account_id, drip_id) REFERENCES drip_campaigns (account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (account_id, contact_id) REFERENCES contacts (account_id, id) ON DELETE CASCADE
);
-- One active execution per contact per drip.
CREATE UNIQUE INDEX drip_executions_one_active ON drip_executions (account_id, drip_id, contact_id)
  WHERE status = 'active';
-- The runner's scan.
CREATE INDEX drip_executions_due ON drip_executions (due_at) WHERE status = 'active';
-- Endpoint 17 (newest first) and the stats.
CREATE INDEX drip_executions_drip ON drip_executions (account_id, drip_id, entered_at DESC, id DESC);
-- A reply or an opt-out ends the contact's active executions.
CREATE INDEX drip_executions_contact ON drip_executions (account_id, contact_id) WHERE status = 'active';

-- Every step an execution sent or tried: the key makes a step go out at most once per execution.
CREATE TABLE drip_step_sends (
  account_id    uuid NOT NULL,
  execution_id  uuid NOT NULL,
  position      integer NOT NULL,
  step_id       uuid NOT NULL,
  message_id    uuid,
  -- The expected failure ({code, description}) that kept the message from being queued.
  error         jsonb,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, execution_id, position),
  FOREIGN KEY (account_id, execution_id) REFERENCES drip_executions (account_id, id) ON DELETE CASCADE
);
CREATE INDEX drip_step_sends_step ON drip_step_sends (account_id, step_id);

-- Causes waiting for the entry worker, written in the cause's own transaction (so a rolled-back
-- cause leaves nothing). `seq` keeps them in commit-ish order; workers delete what they process.
CREATE TABLE drip_entry_queue (
  seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id  uuid NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('list-joined', 'contact-created', 'message-received', 'contact-opt-out')),
  contact_id  uuid NOT NULL,
  list_id     uuid,
  message_id  uuid,
  text        text,
  at          timestamptz NOT NULL DEFAULT now()
);

-- Events: only the three types drips care about, and only for accounts where they can matter
-- (checked set-based on the transition table: a bulk send inserts 100k events in one statement).
-- Ids are cast only when they are well-formed, so no event payload can fail the cause's transaction.
CREATE FUNCTION drip_enqueue_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO drip_entry_queue (account_id, kind, contact_id, message_id, text)
  SELECT n.account_id, n.type, n.contact_id::uuid,
         CASE WHEN n.message_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              THEN n.message_id::uuid END,
         n.text
    FROM (SELECT e.account_id, e.type,
                 CASE e.type WHEN 'contact-created' THEN e.data ->> 'id' ELSE e.data -> 'contact' ->> 'id' END AS contact_id,
                 CASE WHEN e.type = 'message-received' THEN e.data -> 'message' ->> 'id' END AS message_id,
                 CASE WHEN e.type = 'message-received' THEN left(e.data -> 'message' ->> 'message', 200) END AS text
            FROM new_events e
           WHERE e.type IN ('contact-created', 'message-received', 'contact-opt-out')) n
   WHERE n.contact_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
     AND (
       (n.type = 'contact-created' AND EXISTS (
          SELECT 1 FROM drip_campaigns d
           WHERE d.account_id = n.account_id AND d.active AND d.trigger_type = 'contact-created'))
       OR (n.type = 'message-received' AND EXISTS (
          SELECT 1 FROM drip_campaigns d
           WHERE d.account_id = n.account_id AND d.active AND d.trigger_type = 'keyword'))
       OR (n.type IN ('message-received', 'contact-opt-out') AND EXISTS (
          SELECT 1 FROM drip_executions x
           WHERE x.account_id = n.account_id AND x.status = 'active'
             AND x.contact_id = CASE WHEN n.contact_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                                    THEN n.contact_id::uuid END)));
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_drip_enqueue
  AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION drip_enqueue_events();

-- List joins: a new opted-in membership of a list an active drip watches.
CREATE FUNCTION drip_enqueue_list_joins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO drip_entry_queue (account_id, kind, contact_id, list_id)
  SELECT m.account_id, 'list-joined', m.contact_id, m.list_id
    FROM new_members m
   WHERE m.opt_in_at IS NOT NULL AND m.opt_out_at IS NULL
     AND EXISTS (SELECT 1 FROM drip_campaigns d
                  WHERE d.account_id = m.account_id AND d.active AND d.trigger_type = 'list'
                    AND d.list_id = m.list_id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER list_members_drip_enqueue
  AFTER INSERT ON list_members
  REFERENCING NEW TABLE AS new_members
  FOR EACH STATEMENT EXECUTE FUNCTION drip_enqueue_list_joins();

-- A pending (double opt-in) membership that becomes opted in joins the list at that moment.
CREATE FUNCTION drip_enqueue_list_confirmations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO drip_entry_queue (account_id, kind, contact_id, list_id)
  SELECT m.account_id, 'list-joined', m.contact_id, m.list_id
    FROM new_members m
    JOIN old_members o USING (account_id, list_id, contact_id)
   WHERE o.opt_in_at IS NULL AND m.opt_in_at IS NOT NULL AND m.opt_out_at IS NULL
     AND EXISTS (SELECT 1 FROM drip_campaigns d
                  WHERE d.account_id = m.account_id AND d.active AND d.trigger_type = 'list'
                    AND d.list_id = m.list_id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER list_members_drip_confirm
  AFTER UPDATE ON list_members
  REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members
  FOR EACH STATEMENT EXECUTE FUNCTION drip_enqueue_list_confirmations();
