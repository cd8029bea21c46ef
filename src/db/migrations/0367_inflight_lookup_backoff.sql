-- A group a dead worker left in flight whose lookups at its provider could not be made (the
-- provider unreachable, a 500, no answer) is looked up again on the live path's backoff
-- (domain/send/dispatch/reconcile.ts, LOOKUP_BACKOFF): claimed_until moves past the backoff, so
-- no worker takes the group before then, and lookup_failures counts the failed rounds. The row
-- keeps only the messages whose lookup failed (those found are recorded, those not found are
-- released to be sent), so the count is each remaining message's own; after LOOKUP_BACKOFF's
-- bound DELIVERY_GUARANTEE decides for them. A constant default adds the column without a rewrite.
ALTER TABLE dispatch_inflight ADD COLUMN lookup_failures smallint NOT NULL DEFAULT 0;
