-- Consent recorded by a contact import (issue 27): how the import reads it, kept with the import
-- so every chunk applies the same rule. NULL: the import records no consent (as before). Either
-- {"column", "atColumn"?, "text"} (a yes/no column of the file, an optional time column) or
-- {"text", "at", "method"} (one statement for the whole file). The consent itself is stored on each
-- contact as a lead form stores it (attributes consentText, consentSource, consentAt).
ALTER TABLE contact_imports ADD COLUMN consent jsonb;
