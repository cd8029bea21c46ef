-- On PostgreSQL 18 and later, sparrow_uuidv7() is the built-in uuidv7(): about half the cost of the
-- portable SQL version, and it matters on the send path (a message, its conversation and its
-- events each take one per row). Older servers keep the portable function of 0002.
DO $$
BEGIN
  IF current_setting('server_version_num')::int >= 180000 THEN
    EXECUTE 'CREATE OR REPLACE FUNCTION sparrow_uuidv7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE
             AS $f$ SELECT uuidv7() $f$';
  END IF;
END
$$;
