-- Background CSV imports of contacts (POST …/contacts/imports).
--
-- * The request spools the upload, checks its structure (header with a mobile column, columns,
--   row size) and stages every data row in contact_import_rows, with the import row, in one
--   transaction: an import is either fully staged (`queued`) or not there at all.
-- * The `contact-imports` worker locks the oldest open import (FOR UPDATE SKIP LOCKED, the claim
--   helper's locked queue) and writes its next `cursor`-ordered chunk of rows as contacts; the
--   contacts, their events, the counters, the first row errors, the cursor and the deletion of
--   the chunk's staged rows commit in one transaction. A worker killed mid-chunk rolls all of it
--   back, and the next one resumes from the same cursor: no row is written twice.
-- * A chunk that fails unexpectedly is retried after a backoff (`retry_at`, `attempts`); past the
--   last attempt the import is `failed` with the reason in `error`, and its staged rows dropped.
CREATE TABLE contact_imports (
  account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id             uuid NOT NULL,
  status         text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  file_name      text,
  merge_strategy text CHECK (merge_strategy IN ('append', 'core', 'remove')),
  header         jsonb NOT NULL,
  total          integer NOT NULL DEFAULT 0,
  processed      integer NOT NULL DEFAULT 0,
  created        integer NOT NULL DEFAULT 0,
  updated        integer NOT NULL DEFAULT 0,
  failed         integer NOT NULL DEFAULT 0,
  row_errors     jsonb NOT NULL DEFAULT '[]',
  error          jsonb,
  cursor         integer NOT NULL DEFAULT 0,
  attempts       integer NOT NULL DEFAULT 0,
  retry_at       timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  created_by     jsonb NOT NULL DEFAULT '{}',
  updated_at     timestamptz NOT NULL DEFAULT now(),
  started_at     timestamptz,
  finished_at    timestamptz,
  PRIMARY KEY (account_id, id)
);

CREATE INDEX contact_imports_open ON contact_imports (created_at) WHERE status IN ('queued', 'running');
CREATE INDEX contact_imports_by_account ON contact_imports (account_id, created_at DESC);

-- Staged rows: `row` counts data rows from 1, `line` is the file line the row starts on (header: 1).
CREATE TABLE contact_import_rows (
  account_id uuid NOT NULL,
  import_id  uuid NOT NULL,
  "row"      integer NOT NULL,
  line       integer NOT NULL,
  cells      jsonb NOT NULL,
  PRIMARY KEY (account_id, import_id, "row"),
  FOREIGN KEY (account_id, import_id) REFERENCES contact_imports (account_id, id) ON DELETE CASCADE
);
