-- Jobs as resources (GET/PUT …/jobs): every send job, and bulk contact operations.
--
-- * kind: 'send' (a send: API, quick campaign, campaign run) or 'contacts' (a bulk contact
--   operation: POST …/bulk/contacts; its action and arguments in `request`).
-- * cancelled_at / cancelled_by: a cancel of a running send (PUT …/jobs/{id}/cancel) failed its
--   undispatched messages; the job then reads `cancelled` whatever its in-flight messages do.
-- * A bulk contact job's selection is taken when it is made (bulk_job_contacts), and the worker
--   walks it in contact id order: `cursor` is the last contact done, `done` how many were done
--   (failures in `failures`, the total in `submitted`). Each chunk is one transaction that holds
--   the job row, so a worker killed mid-chunk leaves nothing half done; a chunk's contacts leave
--   bulk_job_contacts as it commits (a cancel drops the rest).
ALTER TABLE send_jobs
  ADD COLUMN kind text NOT NULL DEFAULT 'send',
  ADD COLUMN cancelled_at timestamptz,
  ADD COLUMN cancelled_by jsonb,
  ADD COLUMN cursor uuid,
  ADD COLUMN done integer NOT NULL DEFAULT 0,
  ADD COLUMN changed integer NOT NULL DEFAULT 0;

CREATE INDEX send_jobs_open_contacts ON send_jobs (created_at) WHERE kind = 'contacts' AND status IN ('queued', 'running');

CREATE TABLE bulk_job_contacts (
  account_id uuid NOT NULL,
  job_id     uuid NOT NULL,
  contact_id uuid NOT NULL,
  PRIMARY KEY (account_id, job_id, contact_id)
);
