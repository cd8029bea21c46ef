-- The expiry index of 0295 had `status = 'queued'` in its condition: a column an index's condition
-- reads is one whose change makes an update non-HOT, so since 0295 every change of a message's
-- status (claim, sent, each receipt) rewrote all of its index entries. The index now reads
-- `expiring_at`, a stored column that holds expires_at while the message is queued and is null
-- otherwise: it changes only when a message with a validity period leaves the queue, and a
-- receipt's update (sent → delivered) touches no index again.
-- Adding a stored column rewrites the table once (each partition), under its lock.
ALTER TABLE messages
  ADD COLUMN expiring_at timestamptz GENERATED ALWAYS AS (CASE WHEN status = 'queued' THEN expires_at END) STORED;

DROP INDEX messages_expiry;
CREATE INDEX messages_expiry ON messages (expiring_at) WHERE expiring_at IS NOT NULL;
