-- Campaigns: a saved send (template, recipients, sender group) that runs now or at next_execution.

CREATE TABLE campaigns (
  account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id              uuid NOT NULL,
  name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description     text,
  field_mappings  jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(field_mappings) = 'array'),
  -- Recipients: the list (list_id) plus {attributes, tags} conditions.
  list_id         uuid,
  filters         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(filters) = 'object'),
  media           jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(media) = 'array'),
  group_id        uuid,
  schedule        jsonb,
  reporting       jsonb,
  template        text NOT NULL DEFAULT '' CHECK (char_length(template) <= 1600),
  trigger_code    text NOT NULL DEFAULT 'M' CHECK (trigger_code IN ('M', 'S', 'FU')),
  -- When the campaign runs next (one-shot); NULL = not scheduled.
  next_execution  timestamptz,
  paused_at       timestamptz,
  -- A scheduler's lease on a due run; another worker may take the run over once it has passed.
  claimed_until   timestamptz,
  -- When the current run was first claimed: a send job of this campaign created since then is this run's.
  run_started_at  timestamptz,
  last_job_id     uuid,
  -- The expected failure ({code, description}) that ended the last run without a send.
  last_error      jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  created_by      jsonb NOT NULL DEFAULT '{}',
  updated_at      timestamptz NOT NULL DEFAULT now(),
  updated_by      jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
-- Listing is newest first.
CREATE INDEX campaigns_created ON campaigns (account_id, created_at DESC, id DESC);
-- The scheduler's scan: due, unpaused campaigns only.
CREATE INDEX campaigns_due ON campaigns (next_execution) WHERE next_execution IS NOT NULL AND paused_at IS NULL;
-- A campaign's send jobs (the scheduler's check that a run already sent).
CREATE INDEX send_jobs_campaign ON send_jobs (account_id, campaign_id, created_at) WHERE campaign_id IS NOT NULL;
