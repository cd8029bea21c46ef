-- Tracked links: a short URL on the public listener that redirects to a stored URL and counts clicks
-- per source (direct, or the send job / campaign whose messages carried it) and UTC day.

CREATE TABLE links (
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id          uuid NOT NULL,
  -- Random, unguessable; global because the redirect path /l/{slug} names no account.
  slug        text NOT NULL CHECK (slug ~ '^[A-Za-z0-9]{10}$'),
  url         text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  jsonb NOT NULL DEFAULT '{}',
  updated_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX links_slug ON links (slug);
CREATE INDEX links_created ON links (account_id, created_at DESC, id DESC);
-- Shortening a message reuses the account's link for a URL (md5: URLs may exceed a btree entry).
CREATE INDEX links_url ON links (account_id, md5(url));

CREATE TABLE link_sources (
  account_id   uuid NOT NULL,
  link_id      uuid NOT NULL,
  id           uuid NOT NULL,
  -- The short URL's suffix (/l/{slug}/{key}); '' for the direct source (/l/{slug}).
  key          text NOT NULL CHECK (key = '' OR key ~ '^[A-Za-z0-9]{6}$'),
  type         text NOT NULL CHECK (type IN ('direct', 'job', 'campaign')),
  job_id       uuid,
  campaign_id  uuid,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, id),
  UNIQUE (account_id, link_id, key),
  FOREIGN KEY (account_id, link_id) REFERENCES links (account_id, id) ON DELETE CASCADE
);
-- One source per link and send job (a text naming the same URL twice shares it).
CREATE UNIQUE INDEX link_sources_job ON link_sources (account_id, link_id, job_id) WHERE job_id IS NOT NULL;

-- Clicks per source and UTC day: an upserted counter.
CREATE TABLE link_clicks (
  account_id  uuid NOT NULL,
  link_id     uuid NOT NULL,
  source_id   uuid NOT NULL,
  day         date NOT NULL,
  clicks      integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, source_id, day),
  FOREIGN KEY (account_id, source_id) REFERENCES link_sources (account_id, id) ON DELETE CASCADE
);
CREATE INDEX link_clicks_link ON link_clicks (account_id, link_id);
