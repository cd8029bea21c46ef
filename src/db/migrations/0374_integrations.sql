-- CRM integrations (issue 29, docs/integrations.md): a connection to HubSpot, Pipedrive or
-- ActiveCampaign per account and CRM. Credentials are sealed under SECRETS_KEY like the other
-- secrets at rest (a JSON object, sealed as one value). The sync worker leases a connection
-- (lease_until) and keeps its place in sync_state after every page, so a killed worker's
-- successor resumes where it stopped once the lease runs out.

CREATE TABLE integrations (
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id             uuid NOT NULL,
  type           text NOT NULL CHECK (type IN ('hubspot', 'pipedrive', 'activecampaign')),
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'error', 'disconnected')),
  credentials    text NOT NULL,
  api_url        text,
  settings       jsonb NOT NULL DEFAULT '{}',
  sync_state     jsonb NOT NULL DEFAULT '{}',
  counts         jsonb NOT NULL DEFAULT '{}',
  last_synced    timestamptz,
  last_error     jsonb,
  sync_due_at    timestamptz DEFAULT now(),
  lease_until    timestamptz,
  events_cursor  uuid,
  push_due_at    timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  created_by     jsonb NOT NULL DEFAULT '{}',
  updated_at     timestamptz NOT NULL DEFAULT now(),
  updated_by     jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
-- One live connection per CRM and account.
CREATE UNIQUE INDEX integrations_live_type ON integrations (account_id, type) WHERE status <> 'disconnected';
CREATE INDEX integrations_created ON integrations (account_id, created_at, id);
CREATE INDEX integrations_due ON integrations (sync_due_at) WHERE status <> 'disconnected';

-- What Sparrow writes to a CRM (opt-outs, opt-ins, messages), one row per event and connection:
-- the primary key makes an event's write happen once; 'sending' rows whose lease ran out are
-- checked against the CRM (the marker in the note) before they are sent again.
CREATE TABLE integration_pushes (
  account_id      uuid NOT NULL,
  integration_id  uuid NOT NULL,
  event_id        uuid NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('opt-out', 'opt-in', 'message')),
  crm_id          bigint NOT NULL,
  payload         jsonb NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'done', 'failed')),
  attempts        int NOT NULL DEFAULT 0,
  next_at         timestamptz NOT NULL DEFAULT now(),
  lease_until     timestamptz,
  done_at         timestamptz,
  error           text,
  PRIMARY KEY (integration_id, event_id),
  FOREIGN KEY (account_id, integration_id) REFERENCES integrations (account_id, id) ON DELETE CASCADE
);
CREATE INDEX integration_pushes_due ON integration_pushes (integration_id, next_at) WHERE status IN ('pending', 'sending');
