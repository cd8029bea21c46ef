-- The send path without index churn.
--
-- A status change used to rewrite every index entry of the message (messages_queue had `status`
-- in its predicate, so no status change could be a HOT update). The dispatch queue is now the
-- partial index on a stored generated column `queued` that is true exactly while an outgoing
-- message waits for or is in dispatch (queued or sending). Its value does not change when a claim
-- moves a message queued → sending, nor when a receipt moves it sent → delivered, so those updates
-- are HOT (no index is touched) when the page has room: fillfactor leaves that room. Only leaving
-- the queue (sent, failed) rewrites the index entries.

ALTER TABLE messages
  ADD COLUMN queued boolean GENERATED ALWAYS AS (outgoing AND status IN ('queued', 'sending')) STORED;

CREATE INDEX messages_dispatch ON messages (id) WHERE queued;
DROP INDEX messages_queue;

-- Room on each page for the next versions of its rows (claim, receipt), so they stay on the page.
ALTER TABLE messages SET (fillfactor = 50);

-- A job's messages in id order (the first messages of a send answer, GET …/messages?jobId=)
-- straight from the index instead of sorting the whole job.
CREATE INDEX messages_job_id ON messages (account_id, job_id, id);
DROP INDEX messages_job;
