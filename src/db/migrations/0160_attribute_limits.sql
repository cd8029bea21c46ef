-- Bounds a contact's attributes after a key-by-key merge (src/domain/contacts/attribute-limits.ts
-- passes the limits; every write's own attributes are checked in Node before they get here).
-- Size = UTF-8 bytes of each name plus its value's text, as the Node check counts it.
CREATE FUNCTION sparrow_limit_attributes(attrs jsonb, max_keys int, max_bytes int, upload_row int)
RETURNS jsonb LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n bigint;
  bytes bigint;
BEGIN
  SELECT count(*), coalesce(sum(octet_length(e.k) + coalesce(octet_length(e.v), 0)), 0)
    INTO n, bytes FROM jsonb_each_text(attrs) AS e(k, v);
  IF n > max_keys THEN
    RAISE EXCEPTION 'The contact would have % attributes after the merge; at most % are allowed.', n, max_keys
      USING ERRCODE = 'SPA01', DETAIL = coalesce(upload_row::text, '');
  END IF;
  IF bytes > max_bytes THEN
    RAISE EXCEPTION 'The contact''s attributes would take % bytes after the merge; at most % are allowed.', bytes, max_bytes
      USING ERRCODE = 'SPA01', DETAIL = coalesce(upload_row::text, '');
  END IF;
  RETURN attrs;
END $$;
