-- Numbers on a real carrier are the operator's to give (docs/routing.md, "Who may send from a
-- number"): an SMPP carrier cannot be asked whether a number is ours, so an account may send
-- from a number through such a provider only once the operator assigned it there
-- (`sparrow numbers assign`). One number belongs to one account at a time on a provider.
-- Numbers that were taken before this rule and have no assignment are marked unverified at
-- start-up (domain/numbers/number-assignments.ts: which providers are asked and which are
-- assigned depends on PROVIDERS, which the database does not know).

CREATE TABLE number_assignments (
  provider    text NOT NULL,
  number      text NOT NULL CHECK (number ~ '^\+[1-9][0-9]{1,14}$'),
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (provider, number)
);
-- The dispatcher's question: which providers may this account send this number through?
CREATE INDEX number_assignments_account ON number_assignments (account_id, number);
