-- Drips run on the workflow engine. A drip keeps its authoring record (drip_campaigns, drip_steps:
-- name, description, message ids, stats per message); its behaviour is a workflow with the drip's
-- id (`workflows.drip`: owned by the drip, hidden from the workflow endpoints until endpoint 18
-- hands it over), one version per saved shape of the drip, and its executions are workflow runs.
-- The drip entry queue, executions, step sends and the triggers of 0080 go.

-- The workflow is the engine of the drip with the same id: hidden, and the drip rules apply (a
-- reply ends a run as engaged, a reply window after the last message, exact keyword match).
ALTER TABLE workflows ADD COLUMN drip boolean NOT NULL DEFAULT false;
-- A drip's version: which drip message each send node is ({nodeId: stepId}), for the stats per message.
ALTER TABLE workflow_versions ADD COLUMN drip_steps jsonb;
-- How a stopped run ended when it was not simply stopped: the drip outcomes `engaged` and
-- `opted-out`, and `expired` (the trigger's maxDuration ran out; any workflow).
ALTER TABLE workflow_runs ADD COLUMN end_reason text CHECK (end_reason IN ('engaged', 'opted-out', 'expired'));
-- When endpoint 18 handed the drip's workflow over: runs entered later are the workflow's, not the drip's.
ALTER TABLE drip_campaigns ADD COLUMN migrated_at timestamptz;
UPDATE drip_campaigns SET migrated_at = updated_at WHERE workflow_id IS NOT NULL;

-- Drift fix: a pending (double opt-in) or opted-out membership starts no workflow (0080 checked
-- this for drips, 0090 did not for workflows).
CREATE OR REPLACE FUNCTION workflow_enqueue_list_joins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO workflow_trigger_queue (account_id, kind, contact_id, list_id)
  SELECT n.account_id, 'list-joined', n.contact_id, n.list_id
    FROM new_members n
   WHERE n.opt_in_at IS NOT NULL AND n.opt_out_at IS NULL
     AND workflow_trigger_active(n.account_id, 'trigger.list-joined', n.list_id);
  RETURN NULL;
END;
$$;

-- A pending membership that is confirmed (opt_in_at set: the contact answered YES) joins the list then.
CREATE FUNCTION workflow_enqueue_list_confirmations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO workflow_trigger_queue (account_id, kind, contact_id, list_id)
  SELECT n.account_id, 'list-joined', n.contact_id, n.list_id
    FROM new_members n
    JOIN old_members o USING (account_id, list_id, contact_id)
   WHERE o.opt_in_at IS NULL AND n.opt_in_at IS NOT NULL AND n.opt_out_at IS NULL
     AND workflow_trigger_active(n.account_id, 'trigger.list-joined', n.list_id);
  RETURN NULL;
END;
$$;

CREATE TRIGGER list_members_workflow_confirm
  AFTER UPDATE ON list_members
  REFERENCING OLD TABLE AS old_members NEW TABLE AS new_members
  FOR EACH STATEMENT EXECUTE FUNCTION workflow_enqueue_list_confirmations();

-- Every drip becomes its workflow (dripDefinition() in SQL: trigger, a wait for the trigger delay,
-- per message a wait for its delay and a send, then the end; each node leads to the next).
CREATE FUNCTION pg_temp.zero_delay(d jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce((d ->> 'days')::int, 0) + coalesce((d ->> 'hours')::int, 0) + coalesce((d ->> 'minutes')::int, 0) = 0
$$;

CREATE TEMP TABLE drip_nodes ON COMMIT DROP AS
SELECT n.account_id, n.drip_id, n.ord, n.node, n.step_id,
       row_number() OVER (PARTITION BY n.account_id, n.drip_id ORDER BY n.ord) AS k
  FROM (
    SELECT d.account_id, d.id AS drip_id, 0 AS ord, NULL::uuid AS step_id,
           jsonb_build_object(
             'id', 'trigger',
             'typeId', CASE d.trigger_type WHEN 'list' THEN 'trigger.list-joined'
                                           WHEN 'keyword' THEN 'trigger.keyword'
                                           ELSE 'trigger.contact-created' END,
             'config', CASE d.trigger_type WHEN 'list' THEN jsonb_build_object('listId', d.list_id)
                                           WHEN 'keyword' THEN jsonb_build_object('keyword', d.keyword)
                                           ELSE '{}'::jsonb END
                       || CASE WHEN d.max_duration IS NULL THEN '{}'::jsonb
                               ELSE jsonb_build_object('maxDuration', d.max_duration) END) AS node
      FROM drip_campaigns d
    UNION ALL
    SELECT d.account_id, d.id, 1, NULL,
           jsonb_build_object('id', 'wait-0', 'typeId', 'action.wait',
                              'config', jsonb_build_object('delay', d.trigger_delay))
      FROM drip_campaigns d WHERE NOT pg_temp.zero_delay(d.trigger_delay)
    UNION ALL
    SELECT s.account_id, s.drip_id, 2 + 2 * s.position, NULL,
           jsonb_build_object('id', 'wait-' || (s.position + 1), 'typeId', 'action.wait',
                              'config', jsonb_build_object('delay', s.delay))
      FROM drip_steps s WHERE NOT pg_temp.zero_delay(s.delay)
    UNION ALL
    SELECT s.account_id, s.drip_id, 3 + 2 * s.position, s.id,
           jsonb_build_object('id', 'send-' || (s.position + 1), 'typeId', 'action.send-message',
                              'config', jsonb_build_object('message', s.message)
                                        || CASE WHEN d.group_id IS NULL THEN '{}'::jsonb
                                                ELSE jsonb_build_object('id', d.group_id) END
                                        || CASE WHEN jsonb_array_length(s.media) = 0 THEN '{}'::jsonb
                                                ELSE jsonb_build_object('media', s.media) END)
      FROM drip_steps s JOIN drip_campaigns d ON d.account_id = s.account_id AND d.id = s.drip_id
    UNION ALL
    SELECT d.account_id, d.id, 2147483647, NULL,
           jsonb_build_object('id', 'end', 'typeId', 'action.end', 'config', '{}'::jsonb)
      FROM drip_campaigns d
  ) n;

INSERT INTO workflows (account_id, id, name, drip, created_at, created_by, updated_at, updated_by)
SELECT d.account_id, d.id, d.name, true, d.created_at, d.created_by, d.updated_at, d.updated_by
  FROM drip_campaigns d;

CREATE TEMP TABLE drip_versions ON COMMIT DROP AS
SELECT d.account_id, d.id AS drip_id, sparrow_uuidv7() AS version_id,
       d.active AND d.workflow_id IS NULL AS active
  FROM drip_campaigns d;

INSERT INTO workflow_versions (account_id, id, workflow_id, name, definition, drip_steps, active_at,
                               readonly, created_at, created_by, updated_at, updated_by)
SELECT d.account_id, v.version_id, d.id, 'Drip ' || left(d.name, 190),
       jsonb_build_object(
         'nodes', (SELECT jsonb_agg(n.node ORDER BY n.k) FROM drip_nodes n
                    WHERE n.account_id = d.account_id AND n.drip_id = d.id),
         'edges', coalesce((SELECT jsonb_agg(jsonb_build_object('id', 'edge-' || (b.k - 1), 'source', a.node ->> 'id',
                                                                'target', b.node ->> 'id', 'value', '') ORDER BY b.k)
                              FROM drip_nodes a JOIN drip_nodes b
                                ON b.account_id = a.account_id AND b.drip_id = a.drip_id AND b.k = a.k + 1
                             WHERE a.account_id = d.account_id AND a.drip_id = d.id), '[]'::jsonb),
         'properties', '[]'::jsonb),
       (SELECT coalesce(jsonb_object_agg(n.node ->> 'id', n.step_id), '{}'::jsonb) FROM drip_nodes n
         WHERE n.account_id = d.account_id AND n.drip_id = d.id AND n.step_id IS NOT NULL),
       CASE WHEN v.active THEN now() END,
       EXISTS (SELECT 1 FROM drip_executions x WHERE x.account_id = d.account_id AND x.drip_id = d.id),
       d.created_at, d.created_by, d.updated_at, d.updated_by
  FROM drip_campaigns d JOIN drip_versions v ON v.account_id = d.account_id AND v.drip_id = d.id;

-- Executions become runs (same ids). A running one waits at the send node of its next message
-- (due when that message was due: its wait is behind it), or past the last one in the reply
-- window at `end`; the messages it sent are its recorded steps (numbered by position), so none is
-- sent again and none is skipped.
INSERT INTO workflow_runs (account_id, id, workflow_id, version_id, contact_id, status, node_id, step, due_at,
                           waiting_for, waiting_since, wait_until, trigger, error, end_reason,
                           entered_at, updated_at, ended_at)
SELECT x.account_id, x.id, x.drip_id, v.version_id, x.contact_id,
       CASE WHEN x.status = 'active' THEN (CASE WHEN x.next_position < n.steps THEN 'active' ELSE 'waiting' END)
            WHEN x.status IN ('completed', 'errored', 'stopped') THEN x.status
            ELSE 'stopped' END,
       CASE WHEN x.status = 'active' AND x.next_position < n.steps THEN 'send-' || (x.next_position + 1)
            WHEN x.status = 'active' OR x.status = 'completed' THEN 'end'
            WHEN ls.position IS NOT NULL THEN 'send-' || (ls.position + 1)
            ELSE 'trigger' END,
       coalesce((SELECT max(s.position) + 1 FROM drip_step_sends s
                  WHERE s.account_id = x.account_id AND s.execution_id = x.id), 0),
       x.due_at,
       CASE WHEN x.status = 'active' AND x.next_position >= n.steps THEN 'delay' END,
       CASE WHEN x.status = 'active' AND x.next_position >= n.steps THEN now() END,
       CASE WHEN x.status = 'active' AND x.next_position >= n.steps THEN x.due_at END,
       CASE d.trigger_type WHEN 'list' THEN 'list-joined' WHEN 'keyword' THEN 'message-received'
                           ELSE 'contact-created' END,
       x.error,
       CASE WHEN x.status IN ('engaged', 'opted-out', 'expired') THEN x.status END,
       x.entered_at, coalesce(x.ended_at, x.entered_at), x.ended_at
  FROM drip_executions x
  JOIN drip_campaigns d ON d.account_id = x.account_id AND d.id = x.drip_id
  JOIN drip_versions v ON v.account_id = x.account_id AND v.drip_id = x.drip_id
  CROSS JOIN LATERAL (SELECT count(*)::int AS steps FROM drip_steps s
                       WHERE s.account_id = x.account_id AND s.drip_id = x.drip_id) n
  LEFT JOIN drip_steps ls ON ls.account_id = x.account_id AND ls.id = x.last_step_id;

INSERT INTO workflow_steps (account_id, run_id, step, node_id, outcome, created_at)
SELECT s.account_id, s.execution_id, s.position, 'send-' || (s.position + 1),
       CASE WHEN s.error IS NOT NULL THEN jsonb_build_object('error', s.error)
            ELSE jsonb_build_object('next', NULL, 'messageId', s.message_id) END,
       s.created_at
  FROM drip_step_sends s;

-- Causes not yet taken by the drip-entries worker wait for the workflow-enroll worker now.
INSERT INTO workflow_trigger_queue (account_id, kind, contact_id, list_id, text, created_at)
SELECT q.account_id, q.kind, q.contact_id, q.list_id, q.text, q.at FROM drip_entry_queue q ORDER BY q.seq;

DROP TRIGGER events_drip_enqueue ON events;
DROP TRIGGER list_members_drip_enqueue ON list_members;
DROP TRIGGER list_members_drip_confirm ON list_members;
DROP FUNCTION drip_enqueue_events();
DROP FUNCTION drip_enqueue_list_joins();
DROP FUNCTION drip_enqueue_list_confirmations();
DROP TABLE drip_entry_queue;
DROP TABLE drip_step_sends;
DROP TABLE drip_executions;
-- The old entry worker's lookup of active drips: entry goes through the workflow versions now.
DROP INDEX drip_campaigns_active;
