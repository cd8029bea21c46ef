-- sparrow_uuidv7(): UUIDv7 ids made in SQL for rows inserted set-based, on every supported PostgreSQL
-- (sparrow_uuidv7() is built in only from PostgreSQL 18; a DATABASE_URL server may be older).
-- 48 bits of Unix milliseconds, then the random bits of a v4 with the version nibble set to 7.
CREATE FUNCTION sparrow_uuidv7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
      PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
      FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
$$;
