-- People who sign in to the web console: users with e-mail and password (scrypt, as client secrets),
-- members of one or more accounts with a role, their sessions (cookie → hashed token) and
-- invitations (a link the service shows once). API clients stay for integrations.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT sparrow_uuidv7(),
  email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 320),
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  password_hash text,
  tac_accepted_at timestamptz,
  failed_sign_ins integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  password_changed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (email);

CREATE TABLE account_users (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('Administrator', 'Member', 'Viewer')),
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, user_id)
);
CREATE INDEX account_users_user ON account_users (user_id);

-- A session is its token's SHA-256; the cookie carries the token. `csrf` is the synchronizer token
-- the console sends back in X-CSRF-Token on every state-changing cookie request.
CREATE TABLE user_sessions (
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX user_sessions_user ON user_sessions (user_id);

CREATE TABLE user_invitations (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('Administrator', 'Member', 'Viewer')),
  kind text NOT NULL DEFAULT 'invite' CHECK (kind IN ('invite', 'reset')),
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by jsonb NOT NULL DEFAULT '{}',
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz
);
CREATE INDEX user_invitations_account ON user_invitations (account_id, created_at DESC);
