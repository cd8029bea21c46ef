-- Webhooks: subscriptions, the fan-out queue fed from the event outbox, and delivery rows.

CREATE TABLE webhooks (
  account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                uuid NOT NULL,
  destination       text NOT NULL,
  event_types       text[] NOT NULL CHECK (cardinality(event_types) > 0),
  secret            text NOT NULL,
  -- After a rotation the previous secret keeps signing alongside the new one until it expires.
  previous_secret   text,
  previous_secret_expires_at timestamptz,
  status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_at       timestamptz,
  disabled_reason   text,
  -- Start of the current run of failed attempts (NULL after any success): 5 days of it disables.
  failing_since     timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  created_by        jsonb NOT NULL DEFAULT '{}',
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by        jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
-- The destination names the subscription (DELETE .../webhooks/{url}), so one per account.
CREATE UNIQUE INDEX webhooks_destination ON webhooks (account_id, destination);
CREATE INDEX webhooks_created ON webhooks (account_id, created_at, id);

-- Events waiting to be fanned out to deliveries. Filled in the event's own transaction (so only
-- committed events appear, and none is lost), only for events some active subscription wants.
-- Fan-out workers claim rows with FOR UPDATE SKIP LOCKED and delete them.
CREATE TABLE webhook_event_queue (
  event_id    uuid PRIMARY KEY,
  account_id  uuid NOT NULL
);

CREATE FUNCTION webhook_enqueue_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_event_queue (event_id, account_id)
  SELECT n.id, n.account_id
    FROM new_events n
   WHERE EXISTS (
     SELECT 1 FROM webhooks w
      WHERE w.account_id = n.account_id AND w.status = 'active' AND n.type = ANY (w.event_types));
  RETURN NULL;
END;
$$;

-- Statement level with a transition table: a bulk insert of events is one set-based check.
CREATE TRIGGER events_webhook_enqueue
  AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_enqueue_events();

-- One row per (subscription, event). `next_attempt_at` is also the lease: a claim pushes it past
-- the request timeout, so a killed worker's claims come due again by themselves.
CREATE TABLE webhook_deliveries (
  account_id      uuid NOT NULL,
  id              uuid NOT NULL,
  webhook_id      uuid NOT NULL,
  event_id        uuid NOT NULL,
  event_type      text NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Attempts in the current retry cycle (a replay starts a new cycle); the schedule is indexed by it.
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claim_token     uuid,
  -- Every attempt: {at, statusCode, durationMs, error}.
  attempt_log     jsonb NOT NULL DEFAULT '[]',
  last_status_code integer,
  last_error      text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz,
  PRIMARY KEY (account_id, id),
  UNIQUE (account_id, webhook_id, event_id),
  FOREIGN KEY (account_id, webhook_id) REFERENCES webhooks (account_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_list ON webhook_deliveries (account_id, webhook_id, created_at DESC, id DESC);
