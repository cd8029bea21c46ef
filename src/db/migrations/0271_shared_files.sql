-- Hosted files (POST /v1/tools/sharefile): a file served on the public listener at an unguessable
-- path until it expires. The bytes live in the file store (DATA_DIR/files or an S3 bucket) under
-- storage_key; this row is what the public path, the quota and the expiry purge look at.

CREATE TABLE shared_files (
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id            uuid NOT NULL,
  -- SHA-256 of the path token (256 random bits): the database never holds a working link.
  token_hash    bytea NOT NULL CHECK (octet_length(token_hash) = 32),
  storage_key   text NOT NULL CHECK (storage_key ~ '^[A-Za-z0-9/_-]{1,200}$'),
  content_type  text NOT NULL CHECK (char_length(content_type) BETWEEN 3 AND 100),
  extension     text NOT NULL CHECK (extension ~ '^[a-z0-9]{1,8}$'),
  size_bytes    bigint NOT NULL CHECK (size_bytes > 0),
  sha256        text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  created_by    jsonb NOT NULL DEFAULT '{}',
  updated_at    timestamptz NOT NULL DEFAULT now(),
  updated_by    jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE UNIQUE INDEX shared_files_token ON shared_files (token_hash);
-- The purge claims the oldest expired rows first.
CREATE INDEX shared_files_expiry ON shared_files (expires_at);
-- The quota sums an account's unexpired files.
CREATE INDEX shared_files_account_expiry ON shared_files (account_id, expires_at) INCLUDE (size_bytes);
