-- How many texts anonymous visitors (hosted lead forms, public meeting booking) made an account pay
-- for in the current clock hour, per form / meeting event type: one row each, reset when the hour
-- turns. Written in the submission's transaction (a rolled-back submission uses nothing).
CREATE TABLE anonymous_text_quotas (
  account_id   uuid NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('form', 'booking')),
  owner_id     uuid NOT NULL,
  window_start timestamptz NOT NULL,
  used         integer NOT NULL CHECK (used >= 0),
  PRIMARY KEY (account_id, kind, owner_id)
);
