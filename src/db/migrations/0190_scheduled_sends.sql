-- A send with `sendAt` (POST …/messages) is a send job in status `scheduled`: its request is kept
-- (validated and priced when it was made) and run at send_at by the scheduled-sends worker, which
-- charges the balance then. `cancelled` ends it before then; `failed` records why it could not run.
ALTER TABLE send_jobs
  ADD COLUMN send_at timestamptz,
  ADD COLUMN request jsonb,
  ADD COLUMN error jsonb,
  ADD COLUMN updated_at timestamptz;

CREATE INDEX send_jobs_scheduled ON send_jobs (send_at) WHERE status = 'scheduled';
