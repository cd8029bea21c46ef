-- A bulk send held by quiet hours: its messages are queued at once (and charged), and range
-- dispatch does not hand them out before not_before.
ALTER TABLE dispatch_cursors ADD COLUMN not_before timestamptz;
