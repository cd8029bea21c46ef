-- Leaving an account ends a person's access, including what acts in their name (issue 28): a
-- removed member's SMPP credentials and API clients are revoked, and the webhooks they created,
-- pointed somewhere or were shown the secret of are paused until an administrator confirms them.
-- What needs recording for that:
--   api_clients.created_by       who created a client (and so was shown its secret); '{}' for the
--                                clients created before this migration (no creator known);
--   api_clients.revoked_reason   why a client was revoked ('creator-removed'; NULL: by hand);
--   smpp_credentials.revoked_*   a credential revoked (it no longer binds; its binds are closed);
--   webhooks.holders             the actors (`user:<id>`, or an API client id) that created the
--                                subscription, set its destination or were answered its secret;
--                                backfilled from created_by and updated_by (a change of event types
--                                counts too: more is paused, never less);
--   webhooks.status 'paused'     with paused_at and paused_reason ('creator-removed').
ALTER TABLE api_clients
  ADD COLUMN created_by jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN revoked_reason text;

ALTER TABLE smpp_credentials
  ADD COLUMN revoked_at timestamptz,
  ADD COLUMN revoked_reason text;

ALTER TABLE webhooks
  ADD COLUMN holders text[] NOT NULL DEFAULT '{}',
  ADD COLUMN paused_at timestamptz,
  ADD COLUMN paused_reason text,
  DROP CONSTRAINT webhooks_status_check,
  ADD CONSTRAINT webhooks_status_check CHECK (status IN ('active', 'disabled', 'paused'));

UPDATE webhooks w SET holders = ARRAY(
  SELECT DISTINCT k FROM (
    SELECT CASE b ->> 'source' WHEN 'console' THEN 'user:' || (b ->> 'id') WHEN 'api' THEN b ->> 'id' END AS k
      FROM (VALUES (w.created_by), (w.updated_by)) AS v(b)
  ) x WHERE k IS NOT NULL);
