-- Autoresponders (docs/autoresponders.md): an automatic reply to an inbound text that contains one
-- of the autoresponder's keywords, or that arrives outside its group's office hours.

CREATE TABLE autoresponders (
  account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                uuid NOT NULL,
  name              text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  -- The group whose numbers it answers for; NULL: every number of the account. Deleting the group
  -- deletes its autoresponders (they could otherwise silently widen to every number).
  group_id          uuid,
  trigger_type      text NOT NULL CHECK (trigger_type IN ('keywords', 'outsideOfficeHours')),
  -- Array of keyword strings as the client wrote them (trimmed); matching folds them (keywords.ts).
  keywords          jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(keywords) = 'array'),
  -- The keywords folded for matching (matchKeyOf in src/messaging/keywords.ts), computed on every
  -- save, so the inbound path does not fold 50 keywords of 100 autoresponders for every text.
  keyword_keys      text[] NOT NULL DEFAULT '{}',
  message           text NOT NULL CHECK (char_length(message) BETWEEN 1 AND 1600),
  -- Array of Media items {url, type?, name?, filename?}.
  media             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(media) = 'array'),
  active            boolean NOT NULL DEFAULT true,
  -- Among autoresponders of the same trigger kind that match, the higher priority answers.
  priority          integer NOT NULL DEFAULT 0,
  triggered_count   bigint NOT NULL DEFAULT 0,
  replies_sent      bigint NOT NULL DEFAULT 0,
  suppressed_count  bigint NOT NULL DEFAULT 0,
  last_triggered_at timestamptz,
  last_reply_at     timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  created_by        jsonb NOT NULL DEFAULT '{}',
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by        jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id),
  FOREIGN KEY (account_id, group_id) REFERENCES groups (account_id, id) ON DELETE CASCADE
);
-- Listing is newest first; the inbound path reads the account's active ones.
CREATE INDEX autoresponders_created ON autoresponders (account_id, created_at DESC, id DESC);
CREATE INDEX autoresponders_active ON autoresponders (account_id) WHERE active;
CREATE INDEX autoresponders_group ON autoresponders (account_id, group_id) WHERE group_id IS NOT NULL;

-- The last time an autoresponder answered a contact: no second answer within
-- AUTORESPONDER_WINDOW_MINUTES (defeats reply loops with other bots).
CREATE TABLE autoresponder_marks (
  account_id        uuid NOT NULL,
  autoresponder_id  uuid NOT NULL,
  contact_id        uuid NOT NULL,
  replied_at        timestamptz NOT NULL,
  PRIMARY KEY (account_id, autoresponder_id, contact_id),
  FOREIGN KEY (account_id, autoresponder_id) REFERENCES autoresponders (account_id, id) ON DELETE CASCADE,
  FOREIGN KEY (account_id, contact_id) REFERENCES contacts (account_id, id) ON DELETE CASCADE
);
CREATE INDEX autoresponder_marks_contact ON autoresponder_marks (account_id, contact_id);

-- Clients that held every scope before these two existed (the development and bootstrap clients,
-- and any made with the default) get them too, so the new area is not a 403 after an upgrade.
UPDATE api_clients
   SET scopes = scopes || ARRAY['autoresponders:read', 'autoresponders:write']
 WHERE scopes @> ARRAY['account:read', 'billing:write', 'contacts:read', 'contacts:write', 'lists:read',
                       'lists:write', 'numbers:read', 'numbers:write', 'messages:read', 'messages:send',
                       'conversations:read', 'conversations:write', 'webhooks:read', 'webhooks:write',
                       'campaigns:read', 'campaigns:write', 'templates:read', 'templates:write',
                       'workflows:read', 'workflows:write', 'forms:read', 'forms:write', 'calls:read',
                       'links:read', 'links:write', 'meetings:read', 'meetings:write']
   AND NOT scopes @> ARRAY['autoresponders:read'];
