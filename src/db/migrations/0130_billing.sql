-- Billing: checkout sessions (trial → paid plan), the saved billing profile and payment method,
-- auto top-up settings, the top-ups themselves and the ledger of credits.

CREATE TABLE checkout_sessions (
  account_id            uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                    uuid NOT NULL,
  provider              text NOT NULL CHECK (provider IN ('simulator', 'stripe')),
  provider_session_id   text,
  url                   text,
  plan                  text NOT NULL,
  commitment            integer NOT NULL CHECK (commitment > 0),
  frequency             text NOT NULL,
  name                  text NOT NULL,
  email                 text NOT NULL,
  address               jsonb,
  tax                   jsonb,
  segment_understanding boolean,
  -- What completing the session charges and credits, in the account currency.
  amount                numeric(14, 4) NOT NULL CHECK (amount > 0),
  currency              text NOT NULL,
  success_url           text NOT NULL,
  cancel_url            text NOT NULL,
  status                text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed', 'canceled')),
  completed_at          timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  created_by            jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX checkout_sessions_provider_id ON checkout_sessions (account_id, provider, provider_session_id)
  WHERE provider_session_id IS NOT NULL;

-- The plan and billing details of a paid account, and the payment method its checkout saved.
CREATE TABLE billing_profiles (
  account_id            uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  plan                  text NOT NULL,
  commitment            integer NOT NULL,
  frequency             text NOT NULL,
  name                  text NOT NULL,
  email                 text NOT NULL,
  address               jsonb,
  tax                   jsonb,
  segment_understanding boolean,
  provider              text NOT NULL,
  customer_id           text,
  payment_method_id     text,
  checkout_session_id   uuid NOT NULL,
  updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE auto_topups (
  account_id     uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  enabled        boolean NOT NULL DEFAULT true,
  threshold      numeric(14, 4) NOT NULL CHECK (threshold >= 0),
  amount         numeric(14, 4) NOT NULL CHECK (amount > 0),
  max_per_month  integer NOT NULL CHECK (max_per_month > 0),
  -- A dip below the threshold gets one top-up: disarmed when it is created, re-armed once the
  -- balance is back at or above the threshold.
  armed          boolean NOT NULL DEFAULT true,
  created_at     timestamptz NOT NULL DEFAULT now(),
  created_by     jsonb NOT NULL DEFAULT '{}',
  updated_at     timestamptz NOT NULL DEFAULT now(),
  updated_by     jsonb NOT NULL DEFAULT '{}'
);
-- The worker's scan: enabled, armed settings only.
CREATE INDEX auto_topups_armed ON auto_topups (account_id) WHERE enabled AND armed;

CREATE TABLE topups (
  account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                  uuid NOT NULL,
  amount              numeric(14, 4) NOT NULL CHECK (amount > 0),
  currency            text NOT NULL,
  status              text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Sent with every attempt: the provider charges one top-up once, however often it is retried.
  idempotency_key     text NOT NULL,
  attempts            integer NOT NULL DEFAULT 0,
  next_attempt_at     timestamptz NOT NULL DEFAULT now(),
  claimed_until       timestamptz,
  provider_payment_id text,
  error               jsonb,
  balance_before      numeric(14, 4),
  created_at          timestamptz NOT NULL DEFAULT now(),
  completed_at        timestamptz,
  PRIMARY KEY (account_id, id)
);
-- One top-up in flight per account.
CREATE UNIQUE INDEX topups_one_pending ON topups (account_id) WHERE status = 'pending';
CREATE INDEX topups_due ON topups (next_attempt_at) WHERE status = 'pending';
CREATE INDEX topups_created ON topups (account_id, created_at DESC);

-- Credits to the balance (checkout, top-ups); debits are the charged sends (send_jobs, messages).
CREATE TABLE billing_transactions (
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id            uuid NOT NULL,
  type          text NOT NULL CHECK (type IN ('checkout', 'topup')),
  amount        numeric(14, 4) NOT NULL,
  balance_after numeric(14, 4) NOT NULL,
  -- The checkout session or top-up credited: each is credited once.
  reference_id  uuid NOT NULL,
  description   text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  created_by    jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX billing_transactions_reference ON billing_transactions (account_id, type, reference_id);
CREATE INDEX billing_transactions_created ON billing_transactions (account_id, created_at DESC);

-- The transaction listing reads charged sends newest first: send jobs, and messages sent outside a job.
CREATE INDEX send_jobs_created ON send_jobs (account_id, created_at DESC);
CREATE INDEX messages_charged_single ON messages (account_id, created_at DESC)
  WHERE job_id IS NULL AND outgoing AND price > 0;
