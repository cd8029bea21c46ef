-- Foundation: accounts, API clients and signing keys, contacts, lists, numbers, groups,
-- messages (the send queue), conversations, the event outbox and idempotency records.
-- Every account-owned table is keyed by account_id first so it can be the distribution column.

CREATE TABLE accounts (
  id            uuid PRIMARY KEY,
  name          text NOT NULL,
  plan          text NOT NULL DEFAULT 'trial',
  status        text NOT NULL DEFAULT 'trial' CHECK (status IN ('trial', 'paid', 'suspended')),
  timezone      text NOT NULL DEFAULT 'UTC',
  currency      text NOT NULL DEFAULT 'USD',
  balance       numeric(14, 4) NOT NULL DEFAULT 0,
  help_text     text,
  settings      jsonb NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  created_by    jsonb NOT NULL DEFAULT '{}',
  updated_at    timestamptz NOT NULL DEFAULT now(),
  updated_by    jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE api_clients (
  id            text PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name          text NOT NULL,
  secret_hash   text NOT NULL,
  scopes        text[] NOT NULL,
  revoked_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_clients_account ON api_clients (account_id);

CREATE TABLE signing_keys (
  kid           text PRIMARY KEY,
  alg           text NOT NULL,
  private_jwk   jsonb NOT NULL,
  public_jwk    jsonb NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  retired_at    timestamptz
);

CREATE TABLE contacts (
  account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                uuid NOT NULL,
  first_name        text,
  last_name         text,
  email             text,
  mobile_number     text,
  mobile_country    text,
  mobile_valid      boolean NOT NULL DEFAULT false,
  mobile_line_type  text,
  mobile_verified_at timestamptz,
  attributes        jsonb NOT NULL DEFAULT '{}',
  tags              jsonb NOT NULL DEFAULT '[]',
  integrations      jsonb NOT NULL DEFAULT '{}',
  opt_in_at         timestamptz,
  opted_out_at      timestamptz,
  blocked_at        timestamptz,
  valid             boolean NOT NULL DEFAULT true,
  error             jsonb,
  created_at        timestamptz NOT NULL DEFAULT now(),
  created_by        jsonb NOT NULL DEFAULT '{}',
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by        jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX contacts_mobile ON contacts (account_id, mobile_number) WHERE mobile_number IS NOT NULL;
CREATE INDEX contacts_created ON contacts (account_id, created_at, id);
CREATE INDEX contacts_tags ON contacts USING gin (tags jsonb_path_ops);

CREATE TABLE lists (
  account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                  uuid NOT NULL,
  name                text NOT NULL,
  source              jsonb,
  keyword             text,
  double_opt_in       jsonb NOT NULL DEFAULT '{"enabled": false}',
  filter              jsonb,
  opt_in_confirmation text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  created_by          jsonb NOT NULL DEFAULT '{}',
  updated_at          timestamptz NOT NULL DEFAULT now(),
  updated_by          jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);

CREATE TABLE list_members (
  account_id  uuid NOT NULL,
  list_id     uuid NOT NULL,
  contact_id  uuid NOT NULL,
  opt_in_at   timestamptz,
  opt_out_at  timestamptz,
  added_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, list_id, contact_id),
  FOREIGN KEY (account_id, list_id) REFERENCES lists (account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (account_id, contact_id) REFERENCES contacts (account_id, id) ON DELETE CASCADE
);
CREATE INDEX list_members_contact ON list_members (account_id, contact_id);

CREATE TABLE groups (
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id              uuid NOT NULL,
  name            text NOT NULL,
  notifications   jsonb NOT NULL DEFAULT '[]',
  tags            jsonb NOT NULL DEFAULT '[]',
  users           jsonb NOT NULL DEFAULT '[]',
  office_hours    jsonb,
  is_default      boolean NOT NULL DEFAULT false,
  use_shared_pool boolean NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  created_by      jsonb NOT NULL DEFAULT '{}',
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX groups_one_default ON groups (account_id) WHERE is_default;

CREATE TABLE phone_numbers (
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id              uuid NOT NULL,
  number          text NOT NULL,
  country         text NOT NULL,
  type            text NOT NULL DEFAULT 'local',
  name            text,
  provider        text NOT NULL DEFAULT 'simulator',
  status          text NOT NULL DEFAULT 'active',
  verified        boolean NOT NULL DEFAULT true,
  universal_reply boolean NOT NULL DEFAULT false,
  hosted          boolean NOT NULL DEFAULT false,
  supported_destinations text[] NOT NULL DEFAULT '{}',
  forward_to      jsonb,
  channels        jsonb NOT NULL DEFAULT '{}',
  throughput_mps  integer NOT NULL DEFAULT 10 CHECK (throughput_mps > 0),
  created_at      timestamptz NOT NULL DEFAULT now(),
  created_by      jsonb NOT NULL DEFAULT '{}',
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
-- A number belongs to one account at a time: inbound traffic is routed by it.
CREATE UNIQUE INDEX phone_numbers_number ON phone_numbers (number) WHERE status <> 'released';

CREATE TABLE group_numbers (
  account_id      uuid NOT NULL,
  group_id        uuid NOT NULL,
  phone_number_id uuid NOT NULL,
  PRIMARY KEY (account_id, group_id, phone_number_id),
  FOREIGN KEY (account_id, group_id) REFERENCES groups (account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (account_id, phone_number_id) REFERENCES phone_numbers (account_id, id) ON DELETE CASCADE
);
CREATE INDEX group_numbers_number ON group_numbers (account_id, phone_number_id);

CREATE TABLE conversations (
  account_id      uuid NOT NULL,
  id              uuid NOT NULL,
  contact_id      uuid NOT NULL,
  phone_number_id uuid NOT NULL,
  closed_at       timestamptz,
  last_message_id uuid,
  created_at      timestamptz NOT NULL DEFAULT now(),
  created_by      jsonb NOT NULL DEFAULT '{}',
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id),
  FOREIGN KEY (account_id, contact_id) REFERENCES contacts (account_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX conversations_pair ON conversations (account_id, contact_id, phone_number_id);

CREATE TABLE send_jobs (
  account_id  uuid NOT NULL,
  id          uuid NOT NULL,
  campaign_id uuid,
  status      text NOT NULL DEFAULT 'queued',
  submitted   integer NOT NULL DEFAULT 0,
  queued      integer NOT NULL DEFAULT 0,
  failures    integer NOT NULL DEFAULT 0,
  price       numeric(14, 4) NOT NULL DEFAULT 0,
  invalid     jsonb NOT NULL DEFAULT '[]',
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);

-- Messages are the send queue: dispatchers claim queued rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE messages (
  account_id          uuid NOT NULL,
  id                  uuid NOT NULL,
  job_id              uuid,
  campaign_id         uuid,
  contact_id          uuid,
  conversation_id     uuid,
  phone_number_id     uuid,
  from_number         text,
  to_number           text,
  outgoing            boolean NOT NULL,
  body                text NOT NULL DEFAULT '',
  template            text,
  media               jsonb NOT NULL DEFAULT '[]',
  encoding            text,
  segments            integer NOT NULL DEFAULT 0,
  price               numeric(14, 4) NOT NULL DEFAULT 0,
  status              text NOT NULL,
  error               jsonb,
  provider            text,
  provider_message_id text,
  attempts            integer NOT NULL DEFAULT 0,
  claimed_until       timestamptz,
  not_before          timestamptz,
  read                boolean NOT NULL DEFAULT false,
  created_at          timestamptz NOT NULL DEFAULT now(),
  created_by          jsonb NOT NULL DEFAULT '{}',
  updated_at          timestamptz NOT NULL DEFAULT now(),
  sent_at             timestamptz,
  delivered_at        timestamptz,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX messages_created ON messages (account_id, created_at DESC, id DESC);
CREATE INDEX messages_contact ON messages (account_id, contact_id, created_at DESC);
CREATE INDEX messages_conversation ON messages (account_id, conversation_id, created_at DESC);
CREATE INDEX messages_job ON messages (account_id, job_id);
CREATE INDEX messages_queue ON messages (id) WHERE status IN ('queued', 'sending');
CREATE INDEX messages_provider_id ON messages (provider, provider_message_id) WHERE provider_message_id IS NOT NULL;

-- The transactional outbox: written in the same transaction as the change it announces.
CREATE TABLE events (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL,
  type        text NOT NULL,
  data        jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_account ON events (account_id, created_at);

CREATE TABLE idempotency_keys (
  account_id    uuid NOT NULL,
  client_id     text NOT NULL,
  key           text NOT NULL,
  method        text NOT NULL,
  path          text NOT NULL,
  request_hash  text NOT NULL,
  status_code   integer,
  response_body text,
  response_type text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz,
  PRIMARY KEY (client_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
