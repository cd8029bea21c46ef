-- Fair share (issue 25): the dispatcher serves accounts in turn instead of its oldest open job.
--   accounts.dispatch_weight      an account's share of a shared lane against the others' (1..100,
--                                 default 1: equal shares); the operator sets it.
--   dispatch_cursors.transactional a job of one or a few recipients (not a campaign's) or an SMPP
--                                 client's submissions: within its account it goes before bulk.
--   dispatch_shares               per account, the messages it was handed out so far divided by
--                                 its weight (a virtual time); the open job of the account with
--                                 the least goes next. An account that was idle starts level with
--                                 the least of the accounts that have work (no credit for idling).
ALTER TABLE accounts
  ADD COLUMN dispatch_weight integer NOT NULL DEFAULT 1 CHECK (dispatch_weight BETWEEN 1 AND 100);

ALTER TABLE dispatch_cursors
  ADD COLUMN transactional boolean NOT NULL DEFAULT false;

CREATE TABLE dispatch_shares (
  account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  served float8 NOT NULL DEFAULT 0
);
