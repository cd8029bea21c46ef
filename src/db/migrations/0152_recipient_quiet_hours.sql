-- Quiet hours in the recipient's local time (standards.md): a campaign send holds each message until
-- 8:00 where its recipient is, so one send can have several holds. Range dispatch keeps one cursor
-- per (job, hold); a bulk message carries its hold in not_before (NULL: none), and a claimed range
-- belongs to one hold. '-infinity' stands for "no hold" in the keys.

-- When quiet hours are over in every one of `zones` at or after `at`: `at` itself when it is between
-- 8:00 and 21:00 in all of them, else the latest of their next 8:00s.
CREATE FUNCTION sparrow_window_start(zones text[], at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT max(CASE WHEN l::time >= time '08:00' AND l::time < time '21:00' THEN at
                  WHEN l::time < time '08:00' THEN (l::date + time '08:00') AT TIME ZONE z
                  ELSE (l::date + 1 + time '08:00') AT TIME ZONE z END)
  FROM unnest(zones) AS z, LATERAL (SELECT at AT TIME ZONE z AS l) x
$$;

-- The time zones of a number (E.164): those of its longest prefix in phone_prefix_zones, or NULL.
CREATE FUNCTION sparrow_number_zones(number text) RETURNS text[]
LANGUAGE sql STABLE AS $$
  SELECT z.zones FROM phone_prefix_zones z
  WHERE z.prefix = ANY (ARRAY(SELECT left(ltrim(number, '+'), n) FROM generate_series(1, 9) AS n))
  ORDER BY length(z.prefix) DESC LIMIT 1
$$;

-- When a marketing text to a recipient in `zones` may go out, or NULL when it may go at `at`. Zones
-- within six hours of each other (a US area code, a country with two zones) must all be outside
-- quiet hours: two rounds reach a start that holds in all of them. No known zone, or zones further
-- apart (a non-geographic or continent-wide prefix), fall back to `fallback` (the account's zone).
CREATE FUNCTION sparrow_quiet_until(zones text[], fallback text, at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$
  SELECT nullif(sparrow_window_start(z.zs, sparrow_window_start(z.zs, at)), at)
  FROM (SELECT CASE WHEN zones IS NOT NULL AND cardinality(zones) > 0
                         AND (SELECT max(at AT TIME ZONE n) - min(at AT TIME ZONE n) FROM unnest(zones) n)
                             <= interval '6 hours'
                    THEN zones ELSE ARRAY[fallback] END AS zs) z
$$;

-- Jobs held under the account-wide rule keep their hold, now carried by their messages.
UPDATE messages m SET not_before = c.not_before
FROM dispatch_cursors c
WHERE c.not_before IS NOT NULL AND m.account_id = c.account_id AND m.job_id = c.job_id
  AND m.bulk AND m.status = 'queued';
UPDATE dispatch_cursors SET not_before = '-infinity' WHERE not_before IS NULL;
ALTER TABLE dispatch_cursors
  ALTER COLUMN not_before SET DEFAULT '-infinity',
  ALTER COLUMN not_before SET NOT NULL,
  DROP CONSTRAINT dispatch_cursors_pkey,
  ADD PRIMARY KEY (account_id, job_id, not_before);

ALTER TABLE dispatch_ranges ADD COLUMN not_before timestamptz NOT NULL DEFAULT '-infinity';
UPDATE dispatch_ranges r SET not_before = c.not_before
FROM dispatch_cursors c WHERE c.account_id = r.account_id AND c.job_id = r.job_id;
