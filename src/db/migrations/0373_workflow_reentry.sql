-- Fair share (issue 25): a contact's entries into the account's workflows in the last minutes are
-- counted at every enrollment (the re-entry bound, docs/workflows.md): an index by contact and
-- entry time keeps that count to the contact's own recent runs.
CREATE INDEX workflow_runs_contact_entered ON workflow_runs (account_id, contact_id, entered_at);
