-- A statement that must not stand unless a condition holds refuses itself: it calls
-- sparrow_refuse(reason), which raises SQLSTATE SPA02 with the reason as its message, so the whole
-- statement (and its autocommit transaction) rolls back. An SMPP batch written as one statement
-- (db/queries/smpp-relay.ts) refuses itself this way when its relay job was closed, the balance
-- does not cover it, or a recipient's contact appeared meanwhile; the batch then goes one by one.
CREATE FUNCTION sparrow_refuse(reason text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'SPA02', MESSAGE = reason;
END;
$$;
