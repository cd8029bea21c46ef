-- Devices a person has signed in to the console from (issue 28): the SHA-256 of a long-lived cookie
-- set at a successful sign-in. A sign-in that presents one of the person's devices is trusted: it
-- is not held by the per-e-mail limit on failed sign-ins from unknown devices, so a stranger's flood
-- of wrong passwords from many addresses cannot keep the person out (OWASP's "device cookies").
CREATE TABLE console_devices (
  id text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_devices_user ON console_devices (user_id, last_used_at DESC);
