-- An attempt of unknown fate (no answer in time, the connection lost after the request left) whose
-- lookup at the provider failed goes back to the queue owing that lookup: the next claim asks the
-- provider again before anything may resend it (domain/send/dispatch/settle-uncertain.ts).
-- uncertain_since: when that attempt began (the lookup's window), null when no lookup is owed;
-- lookup_failures: the lookups of it that failed so far (their backoff, and the bound after which
-- DELIVERY_GUARANTEE decides). Neither is indexed, so a message's updates stay HOT (0356); a
-- constant default adds the columns without rewriting the partitions.
ALTER TABLE messages
  ADD COLUMN uncertain_since timestamptz,
  ADD COLUMN lookup_failures smallint NOT NULL DEFAULT 0;
