-- Routing and failover (docs/routing.md): which providers carry a destination, in order of
-- priority, split by weight within a priority. An account's routes come first; rows with no
-- account are the operator's default table (managed with `sparrow routes`).

CREATE TABLE routes (
  id           uuid PRIMARY KEY,
  -- NULL: a default route of the operator, for every account without a matching route of its own.
  account_id   uuid REFERENCES accounts (id) ON DELETE CASCADE,
  -- What the route matches: E.164 digits the destination starts with (no '+'), or an ISO 3166-1
  -- alpha-2 country, or neither (every destination). The longest prefix wins, then the country,
  -- then the catch-all.
  prefix       text CHECK (prefix ~ '^[0-9]{1,15}$'),
  country      text CHECK (country ~ '^[A-Z]{2}$'),
  -- [{"provider": "smpp", "priority": 1, "weight": 70}, …]: the registry's provider names.
  providers    jsonb NOT NULL CHECK (jsonb_typeof(providers) = 'array' AND jsonb_array_length(providers) > 0),
  description  text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  created_by   jsonb NOT NULL DEFAULT '{}',
  updated_at   timestamptz NOT NULL DEFAULT now(),
  updated_by   jsonb NOT NULL DEFAULT '{}',
  CHECK (prefix IS NULL OR country IS NULL)
);
-- One route per account (or for the default table) and destination.
CREATE UNIQUE INDEX routes_match ON routes (
  coalesce(account_id, '00000000-0000-0000-0000-000000000000'::uuid), coalesce(prefix, ''), coalesce(country, '')
);
CREATE INDEX routes_account ON routes (account_id, created_at, id);
