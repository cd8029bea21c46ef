-- Outbound messaging: per-message flags the dispatcher needs, the per-number send-rate windows
-- shared by every worker, receipts that arrive before their submission was recorded, and the
-- SQL mirror of src/messaging/segments.ts used by the set-based bulk send.

-- system: compliance auto-replies (sent even to opted-out contacts, never charged).
-- submitted_at: when the dispatcher was granted the send slot (the per-second rate is counted on it).
ALTER TABLE messages
  ADD COLUMN system boolean NOT NULL DEFAULT false,
  ADD COLUMN submitted_at timestamptz;

-- pending: messages of the job not yet sent or failed; the job is `completed` when it reaches 0.
ALTER TABLE send_jobs ADD COLUMN pending integer NOT NULL DEFAULT 0;

-- One row per sending number: how many sends were granted in the current one-second window.
-- Claims update it with INSERT … ON CONFLICT, which locks the row, so concurrent workers
-- together never exceed the number's throughput in any calendar second.
CREATE TABLE sender_rates (
  phone_number_id uuid PRIMARY KEY,
  account_id      uuid NOT NULL,
  window_second   bigint NOT NULL,
  mps             integer NOT NULL,
  used            integer NOT NULL,
  granted         integer NOT NULL
);

-- A receipt for a provider message id we have not recorded yet (the provider answered the
-- receipt before our write-back of the submission committed). Applied when the id is recorded.
CREATE TABLE early_receipts (
  provider            text NOT NULL,
  provider_message_id text NOT NULL,
  status              text NOT NULL,
  error               jsonb,
  at                  timestamptz NOT NULL,
  received_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, provider_message_id, status)
);

-- GSM-7 basic table and extension table (3GPP TS 23.038), as in src/messaging/segments.ts.
-- Characters that are special inside a regex bracket expression are written as \u escapes.
CREATE FUNCTION sparrow_is_gsm7(t text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(t, '') ~ E'^[@£$¥èéùìòÇ\\u000AØø\\u000DÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&''()*+,./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà\\u005E{}\\u005C\\u005B~\\u005D|€\\u000C\\u002D]*$'
$$;

CREATE FUNCTION sparrow_encoding(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN sparrow_is_gsm7(t) THEN 'GSM-7' ELSE 'UCS-2' END
$$;

-- Septets (GSM-7: extension characters count two) or UTF-16 code units (UCS-2: characters
-- outside the BMP count two).
CREATE FUNCTION sparrow_units(t text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN sparrow_is_gsm7(t) THEN
      2 * length(coalesce(t, '')) - length(regexp_replace(coalesce(t, ''), E'[\\u005E{}\\u005C\\u005B~\\u005D|€\\u000C]', '', 'g'))
    ELSE
      2 * length(t) - length(regexp_replace(t, E'[\\U00010000-\\U0010FFFF]', '', 'g'))
  END
$$;

CREATE FUNCTION sparrow_segments(t text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN sparrow_is_gsm7(t) THEN
      CASE WHEN sparrow_units(t) <= 160 THEN 1 ELSE ceil(sparrow_units(t) / 153.0)::integer END
    ELSE
      CASE WHEN sparrow_units(t) <= 70 THEN 1 ELSE ceil(sparrow_units(t) / 67.0)::integer END
  END
$$;

-- Order of outbound statuses: a status never moves to a lower rank (receipts arrive late, twice,
-- out of order). Terminal statuses share the top rank, so the first one recorded stays.
CREATE FUNCTION sparrow_status_rank(s text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE s
    WHEN 'queued' THEN 0 WHEN 'sending' THEN 1 WHEN 'sent' THEN 2
    WHEN 'delivered' THEN 3 WHEN 'undelivered' THEN 3 WHEN 'failed' THEN 3
    ELSE 0 END
$$;
