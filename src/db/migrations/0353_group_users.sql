-- A group's users are the account's console users (members), linked, not free-form copies: the
-- group shows each one's current e-mail, name, role in the account and terms acceptance, and a
-- person removed from the account (or deleted) leaves its groups with them. The link keeps the
-- order given and the mobile given for that group (console users have no mobile of their own).
CREATE TABLE group_users (
  account_id uuid NOT NULL,
  group_id uuid NOT NULL,
  user_id uuid NOT NULL,
  position integer NOT NULL,
  mobile jsonb,
  PRIMARY KEY (account_id, group_id, user_id),
  FOREIGN KEY (account_id, group_id) REFERENCES groups (account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (account_id, user_id) REFERENCES account_users (account_id, user_id) ON DELETE CASCADE
);
CREATE INDEX group_users_member ON group_users (account_id, user_id);

-- Stored entries that name a member of the group's account (by user id or e-mail) become links.
INSERT INTO group_users (account_id, group_id, user_id, position, mobile)
SELECT g.account_id, g.id, m.user_id, (min(e.ord) - 1)::int, (array_agg(e.u -> 'mobile' ORDER BY e.ord))[1]
  FROM groups g
 CROSS JOIN LATERAL jsonb_array_elements(g.users) WITH ORDINALITY AS e (u, ord)
  JOIN users p ON p.id::text = e.u ->> 'id' OR p.email = lower(e.u ->> 'email')
  JOIN account_users m ON m.account_id = g.account_id AND m.user_id = p.id
 GROUP BY g.account_id, g.id, m.user_id;

-- The entries that named no member are kept, unread, in legacy_users (nothing is dropped).
ALTER TABLE groups RENAME COLUMN users TO legacy_users;
UPDATE groups g
   SET legacy_users = coalesce((
     SELECT jsonb_agg(e.u ORDER BY e.ord)
       FROM jsonb_array_elements(g.legacy_users) WITH ORDINALITY AS e (u, ord)
      WHERE NOT EXISTS (
        SELECT 1 FROM users p JOIN account_users m ON m.user_id = p.id AND m.account_id = g.account_id
         WHERE p.id::text = e.u ->> 'id' OR p.email = lower(e.u ->> 'email'))), '[]'::jsonb)
 WHERE legacy_users <> '[]'::jsonb;
COMMENT ON COLUMN groups.legacy_users IS
  'Group users stored before migration 0353 that named no console user of the account; not shown.';
