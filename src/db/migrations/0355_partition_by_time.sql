-- messages, events and webhook_deliveries grow without bound: they become partitioned by month on
-- their UUIDv7 id (its first 48 bits are the creation time in ms, so an id range is a time range).
-- Primary keys stay as they are and a lookup by id reads one partition; a default partition takes
-- any row no month holds, so a write never fails for want of a partition. The partition worker
-- (src/workers/partition-maintenance.ts) creates the months ahead and drops whole months past the
-- retention (MESSAGE_RETENTION_DAYS) instead of deleting rows.
--
-- Two unique constraints cannot include the partition key, so they change:
--  - messages_inbound_provider_id becomes a plain index: an inbound message is stored under an
--    advisory lock on (account, provider, provider id) after a lookup by that key, which already
--    makes it once (src/domain/inbound).
--  - webhook_deliveries (account_id, webhook_id, event_id) goes: deliveries are only made by the
--    fan-out, which deletes each queued event as it makes its deliveries (one statement, the event
--    row locked), so an event is fanned out once.
--
-- Existing rows move in this transaction (created, filled, then the old tables dropped and the new
-- ones renamed); indexes are built after the rows are in.

-- The smallest UUIDv7 of a moment: its millisecond timestamp, every other bit zero.
CREATE FUNCTION sparrow_uuidv7_floor(at timestamptz) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-0000-0000-000000000000')::uuid
    FROM (SELECT lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') AS h) x
$$;

-- Creates the month partition of `parent` holding `month` (named <parent>_pYYYY_MM) unless it
-- exists; rows of that month waiting in the default partition move into it. Answers whether it
-- created one.
CREATE FUNCTION sparrow_create_partition(parent text, month date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  m date := date_trunc('month', month)::date;
  part text := parent || '_p' || to_char(m, 'YYYY_MM');
  lo uuid := sparrow_uuidv7_floor(m::timestamp AT TIME ZONE 'UTC');
  hi uuid := sparrow_uuidv7_floor((m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
  cols text;
  moved bigint := 0;
BEGIN
  IF to_regclass(part) IS NOT NULL THEN
    RETURN false;
  END IF;
  SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO cols
    FROM pg_attribute WHERE attrelid = parent::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = '';
  IF to_regclass(parent || '_default') IS NOT NULL THEN
    EXECUTE format('CREATE TEMP TABLE sparrow_moving ON COMMIT DROP AS SELECT %s FROM %I WHERE false', cols, parent || '_default');
    EXECUTE format('WITH d AS (DELETE FROM %I WHERE id >= $1 AND id < $2 RETURNING %s) INSERT INTO sparrow_moving SELECT * FROM d',
                   parent || '_default', cols) USING lo, hi;
    GET DIAGNOSTICS moved = ROW_COUNT;
  END IF;
  -- A message's pages keep room for its next versions (claim, receipt) so they stay HOT (0031);
  -- a partitioned table holds no storage options, so each partition takes them.
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)%s', part, parent, lo, hi,
                 CASE WHEN parent IN ('messages', 'messages_new') THEN ' WITH (fillfactor = 50)' ELSE '' END);
  IF moved > 0 THEN
    EXECUTE format('INSERT INTO %I (%s) SELECT %s FROM sparrow_moving', parent, cols, cols);
  END IF;
  IF to_regclass('pg_temp.sparrow_moving') IS NOT NULL THEN
    DROP TABLE pg_temp.sparrow_moving;
  END IF;
  RETURN true;
END;
$$;

-- The creation time a UUIDv7 carries (its first 48 bits, ms since 1970).
CREATE FUNCTION sparrow_uuidv7_time(id uuid) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_timestamp(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)
$$;

-- The month partitions a table needs for its rows now: from its oldest row's month (not before
-- 2000: an id that is not a UUIDv7 stays in the default partition) to three months ahead
-- (PARTITION_MONTHS_AHEAD's default, so that a worker's first maintenance round has nothing to do).
CREATE FUNCTION sparrow_partition_months(oldest uuid) RETURNS SETOF date LANGUAGE sql STABLE AS $$
  SELECT generate_series(
    greatest(coalesce(date_trunc('month', sparrow_uuidv7_time(oldest) AT TIME ZONE 'UTC'),
                      date_trunc('month', now() AT TIME ZONE 'UTC')),
             '2000-01-01'::timestamp),
    date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months', interval '1 month')::date
$$;

-- messages --------------------------------------------------------------------------------------
CREATE TABLE messages_new (
  account_id uuid NOT NULL,
  id uuid NOT NULL,
  job_id uuid,
  campaign_id uuid,
  contact_id uuid,
  conversation_id uuid,
  phone_number_id uuid,
  from_number text,
  to_number text,
  outgoing boolean NOT NULL,
  body text NOT NULL DEFAULT ''::text,
  template text,
  media jsonb NOT NULL DEFAULT '[]'::jsonb,
  encoding text,
  segments integer NOT NULL DEFAULT 0,
  price numeric(14,4) NOT NULL DEFAULT 0,
  status text NOT NULL,
  error jsonb,
  provider text,
  provider_message_id text,
  attempts integer NOT NULL DEFAULT 0,
  claimed_until timestamp with time zone,
  not_before timestamp with time zone,
  read boolean NOT NULL DEFAULT false,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  created_by jsonb DEFAULT '{}'::jsonb,
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  sent_at timestamp with time zone,
  delivered_at timestamp with time zone,
  system boolean NOT NULL DEFAULT false,
  submitted_at timestamp with time zone,
  bulk boolean NOT NULL DEFAULT false,
  queued boolean GENERATED ALWAYS AS ((outgoing AND (NOT bulk) AND (status = ANY (ARRAY['queued'::text, 'sending'::text])))) STORED,
  provider_ref text,
  expires_at timestamp with time zone
) PARTITION BY RANGE (id);
CREATE TABLE messages_default PARTITION OF messages_new DEFAULT WITH (fillfactor = 50);
SELECT sparrow_create_partition('messages_new', m)
  FROM sparrow_partition_months((SELECT id FROM messages ORDER BY id LIMIT 1)) m;
INSERT INTO messages_new (account_id, id, job_id, campaign_id, contact_id, conversation_id, phone_number_id,
  from_number, to_number, outgoing, body, template, media, encoding, segments, price, status, error, provider,
  provider_message_id, attempts, claimed_until, not_before, read, created_at, created_by, updated_at, sent_at,
  delivered_at, system, submitted_at, bulk, provider_ref, expires_at)
SELECT account_id, id, job_id, campaign_id, contact_id, conversation_id, phone_number_id,
  from_number, to_number, outgoing, body, template, media, encoding, segments, price, status, error, provider,
  provider_message_id, attempts, claimed_until, not_before, read, created_at, created_by, updated_at, sent_at,
  delivered_at, system, submitted_at, bulk, provider_ref, expires_at
  FROM messages;
DROP TABLE messages;
ALTER TABLE messages_new RENAME TO messages;
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'messages'::regclass AND c.relname LIKE 'messages\_new\_p%' LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', r.relname, replace(r.relname, 'messages_new_', 'messages_'));
  END LOOP;
END $$;
ALTER TABLE messages ADD CONSTRAINT messages_pkey PRIMARY KEY (account_id, id);
CREATE INDEX messages_charged_single ON messages USING btree (account_id, created_at DESC) WHERE ((job_id IS NULL) AND outgoing AND (price > (0)::numeric));
CREATE INDEX messages_contact ON messages USING btree (account_id, contact_id, id);
CREATE INDEX messages_dispatch ON messages USING btree (id) WHERE queued;
CREATE INDEX messages_expiry ON messages USING btree (expires_at) WHERE ((status = 'queued'::text) AND (expires_at IS NOT NULL));
CREATE INDEX messages_inbound_provider_id ON messages USING btree (account_id, provider, provider_message_id) WHERE ((NOT outgoing) AND (provider_message_id IS NOT NULL));
CREATE INDEX messages_job_id ON messages USING btree (account_id, job_id, id);
CREATE INDEX messages_unread ON messages USING btree (account_id, conversation_id, created_at) WHERE ((NOT outgoing) AND (NOT read));

-- events ----------------------------------------------------------------------------------------
CREATE TABLE events_new (
  id uuid NOT NULL,
  account_id uuid NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now()
) PARTITION BY RANGE (id);
CREATE TABLE events_default PARTITION OF events_new DEFAULT;
SELECT sparrow_create_partition('events_new', m) FROM sparrow_partition_months((SELECT id FROM events ORDER BY id LIMIT 1)) m;
INSERT INTO events_new (id, account_id, type, data, created_at) SELECT id, account_id, type, data, created_at FROM events;
-- The payload function takes an events row: it goes with the old table and comes back below.
DROP FUNCTION sparrow_event_payload(events);
DROP TABLE events;
ALTER TABLE events_new RENAME TO events;
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass AND c.relname LIKE 'events\_new\_p%' LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', r.relname, replace(r.relname, 'events_new_', 'events_'));
  END LOOP;
END $$;
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id);
CREATE TRIGGER events_smpp_enqueue AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION smpp_enqueue_events();
CREATE TRIGGER events_webhook_enqueue AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_enqueue_events();
CREATE TRIGGER events_workflow_enqueue AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION workflow_enqueue_events();

-- As in 0281, but a message id that is not a UUID finds no message instead of failing the cast:
-- messages is pruned by id at run time, which casts the id before any other condition is tested.
CREATE FUNCTION sparrow_event_payload(e events) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN NOT (e.data ? 'hydrate') THEN e.data
    WHEN e.data ->> 'hydrate' = 'conversation' THEN coalesce((
      SELECT jsonb_build_object(
        'conversation', jsonb_strip_nulls(jsonb_build_object(
          'id', cv.id, 'contact', jsonb_build_object('id', cv.contact_id),
          'phoneNumber', sparrow_phone_number_ref(cv.account_id, cv.phone_number_id), 'closed', false)),
        'reopened', false)
      FROM conversations cv
      WHERE cv.account_id = e.account_id AND cv.id = (e.data -> 'conversation' ->> 'id')::uuid
    ), e.data - 'hydrate')
    ELSE coalesce((
      SELECT sparrow_omit_nulls(jsonb_build_object(
        'message', sparrow_omit_nulls(jsonb_build_object(
          'id', m.id, 'jobId', m.job_id, 'campaignId', m.campaign_id,
          'conversation', CASE WHEN m.conversation_id IS NOT NULL THEN jsonb_build_object('id', m.conversation_id) END,
          'phoneNumber', m.from_number, 'to', m.to_number, 'outgoing', m.outgoing, 'system', m.system,
          'encoding', m.encoding, 'segments', m.segments, 'price', x -> 'price', 'status', x -> 'status',
          'error', x -> 'error', 'providerMessageId', x -> 'providerMessageId')),
        'contact', sparrow_omit_nulls(jsonb_build_object(
          'id', m.contact_id, 'mobile', sparrow_contact_mobile(m.account_id, m.contact_id, m.to_number))),
        'status', x -> 'status',
        'error', x -> 'error'))
      FROM messages m, LATERAL (SELECT e.data -> 'message' AS x) d
      WHERE m.account_id = e.account_id
        AND m.id = CASE WHEN e.data -> 'message' ->> 'id' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
                        THEN (e.data -> 'message' ->> 'id')::uuid END
    ), e.data - 'hydrate') END
$$;

-- webhook_deliveries ----------------------------------------------------------------------------
CREATE TABLE webhook_deliveries_new (
  account_id uuid NOT NULL,
  id uuid NOT NULL,
  webhook_id uuid NOT NULL,
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  status text NOT NULL DEFAULT 'pending'::text,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamp with time zone NOT NULL DEFAULT now(),
  claim_token uuid,
  attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb,
  last_status_code integer,
  last_error text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  completed_at timestamp with time zone,
  CONSTRAINT webhook_deliveries_status_check CHECK (status = ANY (ARRAY['pending'::text, 'succeeded'::text, 'failed'::text]))
) PARTITION BY RANGE (id);
CREATE TABLE webhook_deliveries_default PARTITION OF webhook_deliveries_new DEFAULT;
SELECT sparrow_create_partition('webhook_deliveries_new', m)
  FROM sparrow_partition_months((SELECT id FROM webhook_deliveries ORDER BY id LIMIT 1)) m;
INSERT INTO webhook_deliveries_new SELECT * FROM webhook_deliveries;
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_new RENAME TO webhook_deliveries;
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'webhook_deliveries'::regclass AND c.relname LIKE 'webhook\_deliveries\_new\_p%' LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', r.relname, replace(r.relname, 'webhook_deliveries_new_', 'webhook_deliveries_'));
  END LOOP;
END $$;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (account_id, id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_account_id_webhook_id_fkey
  FOREIGN KEY (account_id, webhook_id) REFERENCES webhooks(account_id, id) ON DELETE CASCADE;
CREATE INDEX webhook_deliveries_list ON webhook_deliveries USING btree (account_id, webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries USING btree (webhook_id, next_attempt_at) WHERE (status = 'pending'::text);
