-- Compliance records (issue 27): an account's 10DLC brand and campaign registrations and toll-free
-- verifications, as the carrier or its registry knows them (ids, state, the caps granted). Sparrow
-- records them; the registration itself goes through the carrier.
CREATE TABLE compliance_registrations (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  kind text NOT NULL CHECK (kind IN ('10dlc-brand', '10dlc-campaign', 'toll-free-verification')),
  name text NOT NULL,
  external_id text,
  parent_id uuid,
  status text NOT NULL DEFAULT 'draft'
    CHECK (status IN ('draft', 'submitted', 'pending', 'approved', 'rejected', 'suspended')),
  use_case text,
  phone_number_ids uuid[] NOT NULL DEFAULT '{}',
  group_id uuid,
  messages_per_second integer,
  daily_cap integer,
  notes text,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by jsonb NOT NULL DEFAULT '{}'::jsonb,
  PRIMARY KEY (account_id, id)
);
