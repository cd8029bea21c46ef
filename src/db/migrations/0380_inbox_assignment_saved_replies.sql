-- Inbox (issue 27): a conversation can be assigned to a person of its account (the assignment
-- goes when they leave the account), and the account keeps saved replies to insert into a reply.
ALTER TABLE conversations ADD COLUMN assigned_user_id uuid;
ALTER TABLE conversations ADD CONSTRAINT conversations_assignee_fkey
  FOREIGN KEY (account_id, assigned_user_id) REFERENCES account_users (account_id, user_id)
  ON DELETE SET NULL (assigned_user_id);
CREATE INDEX conversations_assignee ON conversations (account_id, assigned_user_id, updated_at DESC, id DESC)
  WHERE assigned_user_id IS NOT NULL;

CREATE TABLE saved_replies (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  name text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL DEFAULT now(),
  updated_by jsonb NOT NULL DEFAULT '{}'::jsonb,
  PRIMARY KEY (account_id, id)
);
CREATE INDEX saved_replies_name ON saved_replies (account_id, lower(name), id);
