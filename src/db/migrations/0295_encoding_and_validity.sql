-- Smart encoding and validity periods (docs/encoding.md).
--
-- accounts.smart_encoding: typographic look-alikes in a text are replaced by GSM-7 characters at
-- acceptance (on unless the account turns it off; a send may turn it off for itself).
-- accounts.validity_period: the default validity, in seconds, of the account's messages (null: none).
-- messages.expires_at: a message still undispatched at this instant fails as expired (MSG-012) and
-- its price is refunded; the remaining validity is handed to the provider on submission.
ALTER TABLE accounts
  ADD COLUMN smart_encoding boolean NOT NULL DEFAULT true,
  ADD COLUMN validity_period integer CHECK (validity_period > 0);

ALTER TABLE messages ADD COLUMN expires_at timestamptz;

-- The expiry sweep reads only queued messages that have a validity (few: the column is null for the rest).
CREATE INDEX messages_expiry ON messages (expires_at) WHERE status = 'queued' AND expires_at IS NOT NULL;

-- The SQL mirror of smartEncode() in src/messaging/segments.ts, applied to merge-field values when a
-- bulk send renders its template in SQL. Each look-alike in the first list becomes the character at
-- the same place in the second (the zero-width space, last and unmatched, is removed); the ellipsis
-- becomes three dots. test/messaging/segments.test.ts proves both agree on every character of the table.
-- An ASCII-only value (most names) has none of them and is answered as it is: translate() over the
-- table costs about ten times a plain render per row, the length test about one.
CREATE FUNCTION sparrow_smart_encode(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN octet_length(t) = length(t) THEN t ELSE replace(
    translate(t,
      E'\u2018\u2019\u201A\u201B\u2032\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB\u2013\u2014\u2015\u2212\u00A0\u2002\u2003\u2009\u200A\u202F\u2022\u02C6\u02DC\u2039\u203A\u200B',
      E'''''''''''"""""""----      -^~<>'),
    E'\u2026', '...') END
$$;
