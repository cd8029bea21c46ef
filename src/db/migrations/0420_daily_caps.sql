-- Carrier-aware pacing (issue 25): optional daily caps per number and per sender group, as carriers
-- set them per brand or campaign (T-Mobile's daily 10DLC limits). NULL: no cap.
ALTER TABLE phone_numbers ADD COLUMN daily_cap integer CHECK (daily_cap >= 1);
ALTER TABLE groups ADD COLUMN daily_cap integer CHECK (daily_cap >= 1);

-- What each capped number and group has been granted on a day: the account's calendar day, in the
-- account's time zone. One row per key and day, created at the first grant of the day and locked by
-- every grant (sparrow_grant_daily), so concurrent dispatchers never grant more than the cap between
-- them. Rows a week old are dropped by the first grant of a key's next day.
CREATE TABLE daily_sends (
  account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  scope text NOT NULL CHECK (scope IN ('number', 'group')),
  key_id uuid NOT NULL,
  day date NOT NULL,
  used integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, scope, key_id, day)
);

-- The numbers a send job sends from (its sender pool at acceptance): its estimated finish time reads
-- their rates and caps, and the jobs ahead of it on them, without reading its messages.
ALTER TABLE send_jobs ADD COLUMN phone_number_ids uuid[];
UPDATE send_jobs j SET phone_number_ids = (
    SELECT array_agg(DISTINCT m.phone_number_id) FROM messages m
     WHERE m.account_id = j.account_id AND m.job_id = j.id AND m.outgoing AND m.phone_number_id IS NOT NULL
       AND m.status IN ('queued', 'sending'))
 WHERE j.kind = 'send' AND j.status IN ('queued', 'sending');

-- The daily caps over a number: its own and those of its groups.
CREATE FUNCTION sparrow_daily_caps(p_account uuid, p_number uuid)
RETURNS TABLE (scope text, key_id uuid, cap integer)
LANGUAGE sql STABLE AS $$
  SELECT 'number', n.id, n.daily_cap FROM phone_numbers n
   WHERE n.account_id = p_account AND n.id = p_number AND n.daily_cap IS NOT NULL
  UNION ALL
  SELECT 'group', g.id, g.daily_cap FROM group_numbers gn
    JOIN groups g ON g.account_id = gn.account_id AND g.id = gn.group_id
   WHERE gn.account_id = p_account AND gn.phone_number_id = p_number AND g.daily_cap IS NOT NULL
$$;

-- Grants up to p_wanted[i] sends today to number p_numbers[i] of account p_accounts[i], within the
-- number's cap and the caps of its groups (what is left of each today), and counts them. Answers per
-- number what it was granted, what is left of its tightest cap after the grant (NULL: no cap) and the
-- day it counted in. Every counter row involved is created at 0 and locked first, in one order
-- (account, scope, key), so that two grants over the same rows wait for each other and never
-- deadlock; numbers sharing a group are served in number order. Called in a statement of its own:
-- the locks last for that statement only.
CREATE FUNCTION sparrow_grant_daily(p_accounts uuid[], p_numbers uuid[], p_wanted integer[])
RETURNS TABLE (number_id uuid, granted integer, left_after integer, on_day date)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  w record;
  v_left integer;
  v_give integer;
BEGIN
  WITH w AS (
    SELECT DISTINCT x.account_id, x.number_id, (now() AT TIME ZONE a.timezone)::date AS today
      FROM unnest(p_accounts, p_numbers) AS x(account_id, number_id)
      JOIN accounts a ON a.id = x.account_id
  ), ins AS (
    INSERT INTO daily_sends AS d (account_id, scope, key_id, day, used)
    SELECT DISTINCT w.account_id, k.scope, k.key_id, w.today, 0
      FROM w CROSS JOIN LATERAL sparrow_daily_caps(w.account_id, w.number_id) k
     ORDER BY 1, 2, 3
    ON CONFLICT (account_id, scope, key_id, day) DO UPDATE SET used = d.used
    RETURNING d.account_id, d.scope, d.key_id, d.day, (d.xmax = 0) AS fresh
  )
  DELETE FROM daily_sends o USING ins
   WHERE ins.fresh AND o.account_id = ins.account_id AND o.scope = ins.scope AND o.key_id = ins.key_id
     AND o.day < ins.day - 7;

  FOR w IN
    SELECT x.account_id, x.number_id, sum(x.wanted)::integer AS wanted, (now() AT TIME ZONE a.timezone)::date AS today
      FROM unnest(p_accounts, p_numbers, p_wanted) AS x(account_id, number_id, wanted)
      JOIN accounts a ON a.id = x.account_id
     GROUP BY x.account_id, x.number_id, a.timezone
     ORDER BY x.number_id
  LOOP
    SELECT min(k.cap - d.used) INTO v_left
      FROM sparrow_daily_caps(w.account_id, w.number_id) k
      JOIN daily_sends d ON d.account_id = w.account_id AND d.scope = k.scope AND d.key_id = k.key_id
                        AND d.day = w.today;
    v_give := CASE WHEN v_left IS NULL THEN w.wanted ELSE least(w.wanted, greatest(v_left, 0)) END;
    IF v_left IS NOT NULL AND v_give > 0 THEN
      UPDATE daily_sends d SET used = d.used + v_give
        FROM sparrow_daily_caps(w.account_id, w.number_id) k
       WHERE d.account_id = w.account_id AND d.scope = k.scope AND d.key_id = k.key_id AND d.day = w.today;
    END IF;
    number_id := w.number_id;
    granted := v_give;
    left_after := v_left - v_give;
    on_day := w.today;
    RETURN NEXT;
  END LOOP;
END
$$;
