-- A new recipient becomes a contact on every send path (the API by number, an SMPP relay batch), so
-- a contact insert is paid per message on a first send. Two parts of it bought nothing:
--
-- * The foreign key to accounts: a per-row trigger probing the account row FOR KEY SHARE, ~10 µs
--   of the ~25 µs an insert costs (measured on 20,000 rows in one statement). Accounts are never
--   deleted (closing one is a status), so its ON DELETE CASCADE never ran, and every writer takes
--   account_id from the authenticated account; messages, conversations' and events' rows, the
--   other per-recipient rows, never had one.
-- * An entry in the tags index for every contact without tags (jsonb_path_ops indexes an empty
--   array as an "empty item"), ~5 µs: the index now holds only contacts with tags, and the one
--   query that filters by tag (recipientsSql) states that condition so the planner can use it.
ALTER TABLE contacts DROP CONSTRAINT contacts_account_id_fkey;
DROP INDEX contacts_tags;
CREATE INDEX contacts_tags ON contacts USING gin (tags jsonb_path_ops) WHERE tags <> '[]'::jsonb;
