-- Message templates: reusable message text (with triple-brace merge fields) and media.

CREATE TABLE templates (
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id          uuid NOT NULL,
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  type        text NOT NULL DEFAULT 'SMS' CHECK (type IN ('SMS', 'Web')),
  template    text NOT NULL CHECK (char_length(template) BETWEEN 1 AND 1600),
  -- Array of Media items {url, type?, name?, filename?}.
  media       jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(media) = 'array'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  created_by  jsonb NOT NULL DEFAULT '{}',
  updated_at  timestamptz NOT NULL DEFAULT now(),
  updated_by  jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
-- Listing is newest first.
CREATE INDEX templates_created ON templates (account_id, created_at DESC, id DESC);
