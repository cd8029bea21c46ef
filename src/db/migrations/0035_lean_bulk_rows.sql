-- Narrower rows on the bulk path.
--
-- * A bulk send's messages share their source text and their author: both are kept once, on the
--   send job, and a bulk message row leaves them NULL (the message views read them through the
--   job). Every row version of a message (queued, sent, delivered) is ~180 bytes smaller.
-- * events_account served no query (events are read by id); each event paid for an entry in it.
ALTER TABLE send_jobs ADD COLUMN template text;
ALTER TABLE messages ALTER COLUMN created_by DROP NOT NULL;
DROP INDEX events_account;
