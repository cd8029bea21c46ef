-- One claim helper for every queue (src/db/queries/claim.ts): leased queues carry a lease, a claim
-- token (only its holder completes, releases or retries the item) and an attempts counter (the
-- backoff of a failed attempt grows with it; a completed item starts again from zero).
ALTER TABLE workflow_runs ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE campaigns ADD COLUMN claim_token uuid, ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE topups ADD COLUMN claim_token uuid;
-- A workflow cause that failed is tried again after a backoff, not at the next round.
ALTER TABLE workflow_trigger_queue ADD COLUMN due_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE smpp_outbox ADD COLUMN claim_token uuid;
-- Scheduled sends are claimed with a lease like every queue (one worker runs a due send; a failure waits out its backoff).
ALTER TABLE send_jobs ADD COLUMN claimed_until timestamptz, ADD COLUMN claim_token uuid, ADD COLUMN attempts integer NOT NULL DEFAULT 0;
