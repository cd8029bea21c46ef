-- Workflows: versioned node/edge definitions, the trigger queue fed from the database, and runs
-- (one per enrollment of a contact) that the workflow-runner worker moves from node to node.

CREATE TABLE workflows (
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id          uuid NOT NULL,
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  jsonb NOT NULL DEFAULT '{}',
  updated_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE INDEX workflows_created ON workflows (account_id, created_at DESC, id DESC);

CREATE TABLE workflow_versions (
  account_id      uuid NOT NULL,
  id              uuid NOT NULL,
  workflow_id     uuid NOT NULL,
  name            text NOT NULL DEFAULT '' CHECK (char_length(name) <= 200),
  -- {nodes: [{id, typeId, config}], edges: [{id, source, target, value}], properties: [...]}.
  definition      jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object'),
  -- Since when this is THE active version of its workflow (at most one; see the index below).
  active_at       timestamptz,
  -- When it last stopped being the active one.
  last_active_at  timestamptz,
  -- Set once a contact has entered it: its definition is then frozen (runs point into it).
  readonly        boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  created_by      jsonb NOT NULL DEFAULT '{}',
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id),
  FOREIGN KEY (account_id, workflow_id) REFERENCES workflows (account_id, id) ON DELETE CASCADE
);
CREATE INDEX workflow_versions_workflow ON workflow_versions (account_id, workflow_id, created_at, id);
CREATE UNIQUE INDEX workflow_versions_one_active ON workflow_versions (account_id, workflow_id)
  WHERE active_at IS NOT NULL;
-- The enrollment scan: the account's active versions (and their trigger type).
CREATE INDEX workflow_versions_active ON workflow_versions (account_id) WHERE active_at IS NOT NULL;

-- One row per enrollment. `due_at` is the timer (NULL: nothing to do until an outside event);
-- `claimed_until` is a runner's lease on it. `step` counts executed nodes: (run, step) keys a step.
CREATE TABLE workflow_runs (
  account_id      uuid NOT NULL,
  id              uuid NOT NULL,
  workflow_id     uuid NOT NULL,
  version_id      uuid NOT NULL,
  contact_id      uuid NOT NULL,
  status          text NOT NULL DEFAULT 'active'
                  CHECK (status IN ('active', 'waiting', 'completed', 'stopped', 'errored')),
  node_id         text NOT NULL,
  step            integer NOT NULL DEFAULT 0,
  due_at          timestamptz,
  claimed_until   timestamptz,
  -- The claim holding the lease: a step commits only while its claim still holds the run.
  claim_token     uuid,
  -- While waiting: what for ('delay': action.wait, 'reply': condition.replied), since when (an
  -- inbound message after waiting_since is a reply) and until when.
  waiting_for     text CHECK (waiting_for IN ('delay', 'reply')),
  waiting_since   timestamptz,
  wait_until      timestamptz,
  trigger         text NOT NULL,
  error           jsonb,
  entered_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  ended_at        timestamptz,
  PRIMARY KEY (account_id, id),
  FOREIGN KEY (account_id, workflow_id) REFERENCES workflows (account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (account_id, version_id) REFERENCES workflow_versions (account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (account_id, contact_id) REFERENCES contacts (account_id, id) ON DELETE CASCADE
);
-- One live run per contact per workflow: a second enrollment while one runs is a no-op.
CREATE UNIQUE INDEX workflow_runs_live ON workflow_runs (account_id, workflow_id, contact_id)
  WHERE status IN ('active', 'waiting');
CREATE INDEX workflow_runs_list ON workflow_runs (account_id, workflow_id, entered_at DESC, id DESC);
CREATE INDEX workflow_runs_contact ON workflow_runs (account_id, contact_id) WHERE status IN ('active', 'waiting');
-- Re-enrollment check: has this contact ever entered this workflow.
CREATE INDEX workflow_runs_workflow_contact ON workflow_runs (account_id, workflow_id, contact_id);
CREATE INDEX workflow_runs_due ON workflow_runs (due_at) WHERE status IN ('active', 'waiting');

-- Executed steps: a retried step finds its key and does not act (send) twice.
CREATE TABLE workflow_steps (
  account_id  uuid NOT NULL,
  run_id      uuid NOT NULL,
  step        integer NOT NULL,
  node_id     text NOT NULL,
  -- What the step did, e.g. {messageId} or {error}.
  outcome     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, run_id, step)
);

-- Causes waiting to be turned into enrollments / run wake-ups by the workflow-enroll worker.
CREATE TABLE workflow_trigger_queue (
  id          uuid PRIMARY KEY DEFAULT sparrow_uuidv7(),
  account_id  uuid NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('contact-created', 'message-received', 'contact-opt-out', 'list-joined')),
  contact_id  uuid NOT NULL,
  list_id     uuid,
  text        text,
  -- Failed handling attempts: a row that keeps failing is dropped after a few (logged).
  attempts    integer NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Whether the account has an active version whose trigger node is of this type (and, for
-- trigger.list-joined, names this list). Active versions per account are few.
CREATE FUNCTION workflow_trigger_active(account uuid, type_id text, list_id uuid DEFAULT NULL)
RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (
    SELECT 1 FROM workflow_versions v
     WHERE v.account_id = account AND v.active_at IS NOT NULL
       AND jsonb_path_exists(v.definition, '$.nodes[*] ? (@.typeId == $t && ($l == "" || @.config.listId == $l))',
                             jsonb_build_object('t', type_id, 'l', coalesce(list_id::text, ''))))
$$;

-- Whether the contact has a live run (an inbound text may be its reply; an opt-out stops it).
CREATE FUNCTION workflow_contact_live(account uuid, contact uuid) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM workflow_runs r
                  WHERE r.account_id = account AND r.contact_id = contact AND r.status IN ('active', 'waiting'))
$$;

-- Statement level with a transition table. The type filter comes first and is all a bulk send's
-- message events pay; the rest only runs for causes some workflow of the account can act on.
CREATE FUNCTION workflow_enqueue_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- Event data is any JSON: only text of this shape is cast (a trigger must never fail an event insert).
  uuid_re constant text := '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
BEGIN
  INSERT INTO workflow_trigger_queue (account_id, kind, contact_id, text)
  SELECT e.account_id, e.type, e.contact_id, e.text
    FROM (SELECT n.account_id, n.type,
                 CASE WHEN c.id ~ uuid_re THEN c.id::uuid END AS contact_id,
                 CASE WHEN n.type = 'message-received' THEN n.data -> 'message' ->> 'message' END AS text
            FROM new_events n
           CROSS JOIN LATERAL (SELECT CASE WHEN n.type = 'contact-created' THEN n.data ->> 'id'
                                           ELSE n.data -> 'contact' ->> 'id' END AS id) c
           WHERE n.type IN ('contact-created', 'message-received', 'contact-opt-out')) e
   WHERE e.contact_id IS NOT NULL
     AND CASE e.type
           WHEN 'contact-created' THEN workflow_trigger_active(e.account_id, 'trigger.contact-created')
           WHEN 'message-received' THEN workflow_trigger_active(e.account_id, 'trigger.keyword')
                                        OR workflow_contact_live(e.account_id, e.contact_id)
           ELSE workflow_contact_live(e.account_id, e.contact_id)
         END;
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_workflow_enqueue
  AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION workflow_enqueue_events();

CREATE FUNCTION workflow_enqueue_list_joins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO workflow_trigger_queue (account_id, kind, contact_id, list_id)
  SELECT n.account_id, 'list-joined', n.contact_id, n.list_id
    FROM new_members n
   WHERE workflow_trigger_active(n.account_id, 'trigger.list-joined', n.list_id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER list_members_workflow_enqueue
  AFTER INSERT ON list_members
  REFERENCING NEW TABLE AS new_members
  FOR EACH STATEMENT EXECUTE FUNCTION workflow_enqueue_list_joins();
