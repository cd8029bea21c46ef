-- Exactly once at the carrier, as near as physics allows.
--
-- Before a dispatcher hands a group of messages to a provider it records the group here, in a
-- statement of its own (one row per group, never one write per message); the row is deleted in the
-- transaction that records the group's last outcome. After a worker dies, the messages of its
-- leftover rows that are still unrecorded are the only ones whose fate at the carrier is unknown:
-- they are reconciled with the provider (or settled by DELIVERY_GUARANTEE) when the row's lease
-- has passed, and only then may a range takeover or a claim retry send them again. Messages of a
-- claim that are in no row were never handed over and are sent normally.
CREATE TABLE dispatch_inflight (
  id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  started_at       timestamptz NOT NULL DEFAULT now(),
  claimed_until    timestamptz NOT NULL,
  provider         text NOT NULL,
  -- Messages of a bulk range (still `queued`, attempt not yet counted) or one-off claims (`sending`).
  ranged           boolean NOT NULL,
  -- The range the group belongs to (ranged groups): its takeover waits for this row to go.
  range_account_id uuid,
  range_job_id     uuid,
  range_lo         uuid,
  account_ids      uuid[] NOT NULL,
  ids              uuid[] NOT NULL,
  attempts         int[] NOT NULL
);
CREATE INDEX dispatch_inflight_range ON dispatch_inflight (range_account_id, range_job_id, range_lo);
CREATE INDEX dispatch_inflight_expiry ON dispatch_inflight (claimed_until);
