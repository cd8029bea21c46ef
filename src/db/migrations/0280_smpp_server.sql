-- SMPP server (docs/smpp-server.md): credentials ESMEs bind with, the receipts they asked for, and
-- the queue of deliver_sm (delivery receipts, inbound texts) waiting for a bound receiver.

CREATE TABLE smpp_credentials (
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id              uuid NOT NULL,
  -- The bind's system_id: unique across accounts (a bind names no account).
  system_id       text NOT NULL,
  -- scrypt hash of the password (src/domain/auth/secrets.ts); the password is shown once.
  password_hash   text NOT NULL,
  name            text NOT NULL,
  -- submit_sm a second accepted across this credential's binds (ESME_RTHROTTLED above it).
  throughput_mps  integer NOT NULL CHECK (throughput_mps > 0),
  created_at      timestamptz NOT NULL DEFAULT now(),
  created_by      jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX smpp_credentials_system_id ON smpp_credentials (system_id);

-- A message submitted over SMPP with registered_delivery set: the ids its submit_sm_resp answered
-- (one per part of a message sent in parts) and which outcomes the ESME wants a receipt for.
CREATE TABLE smpp_submissions (
  account_id      uuid NOT NULL,
  message_id      uuid NOT NULL,
  credential_id   uuid NOT NULL,
  smpp_ids        text[] NOT NULL,
  -- registered_delivery & 3: 1 = every final outcome, 2 = failures only.
  receipt_mask    smallint NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, message_id)
);
CREATE INDEX smpp_submissions_created ON smpp_submissions (created_at);

-- deliver_sm waiting for a receiver bind of the account: receipts and inbound texts. A server
-- process with a receiver of the account bound claims rows (claimed_until is the lease) and
-- deletes each one its ESME acknowledged. Rows nobody takes expire (SMPP_SERVER_KEEP_HOURS).
CREATE TABLE smpp_outbox (
  account_id      uuid NOT NULL,
  id              uuid NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('receipt', 'inbound')),
  message_id      uuid NOT NULL,
  -- Receipts: the credential that submitted (its binds are preferred).
  credential_id   uuid,
  status          text,
  error           jsonb,
  claimed_until   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, id)
);
CREATE INDEX smpp_outbox_created ON smpp_outbox (created_at);

-- Fed from the event outbox in each event's own transaction (so a receipt exists exactly when the
-- status change committed): final message-status events of messages an ESME asked a receipt
-- for, and message-received events of accounts that have SMPP credentials. Costs one probe of an
-- empty table per statement when nobody uses the SMPP server.
CREATE FUNCTION smpp_enqueue_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM smpp_credentials) THEN
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

CREATE TRIGGER events_smpp_enqueue
  AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION smpp_enqueue_events();
