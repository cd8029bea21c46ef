-- The published description marks nothing nullable: an unset field of a Contact is left out rather
-- than answered as null. sparrow_omit_nulls() drops the null-valued keys of one object (one level
-- only: free-form values such as `attributes` keep theirs), for the Contact built in SQL
-- (contactJsonSql in src/db/queries/contacts-merge.ts), mirroring omitNulls() in src/util.
CREATE FUNCTION sparrow_omit_nulls(o jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM jsonb_each(o) x(k, v) WHERE jsonb_typeof(v) <> 'null'
$$;
