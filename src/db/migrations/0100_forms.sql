-- Lead forms: a hosted sign-up page that creates or updates a contact, adds it to a list, records a
-- conversion and may text a confirmation.

CREATE TABLE forms (
  account_id            uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                    uuid NOT NULL,
  name                  text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description           text CHECK (char_length(description) <= 2000),
  -- The built-in template the form was created from (a catalog key, not a row).
  template_id           text,
  -- [{name, label, type, required, options?}]; `mobile` is always one of them.
  fields                jsonb NOT NULL CHECK (jsonb_typeof(fields) = 'array'),
  list_id               uuid,
  -- National numbers typed into the form are read in this country (ISO 3166 alpha-2).
  default_country       text NOT NULL DEFAULT 'US' CHECK (default_country ~ '^[A-Z]{2}$'),
  confirmation_message  text CHECK (char_length(confirmation_message) <= 1600),
  consent_text          text CHECK (char_length(consent_text) <= 2000),
  submit_label          text CHECK (char_length(submit_label) <= 100),
  success_message       text CHECK (char_length(success_message) <= 2000),
  -- When the form went live; NULL = inactive (the hosted page answers 404).
  active_at             timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  created_by            jsonb NOT NULL DEFAULT '{}',
  updated_at            timestamptz NOT NULL DEFAULT now(),
  updated_by            jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id),
  -- A deleted list leaves the form without one (its submissions then join no list).
  FOREIGN KEY (account_id, list_id) REFERENCES lists (account_id, id) ON DELETE SET NULL (list_id)
);
CREATE INDEX forms_created ON forms (account_id, created_at DESC, id DESC);
-- The public page knows only the form id (the path /f/{formId}).
CREATE INDEX forms_public ON forms (id);

-- Impressions and conversions per form and UTC day: one upserted counter row, not a row per view.
CREATE TABLE form_daily_stats (
  account_id   uuid NOT NULL,
  form_id      uuid NOT NULL,
  day          date NOT NULL,
  impressions  integer NOT NULL DEFAULT 0,
  conversions  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, form_id, day),
  FOREIGN KEY (account_id, form_id) REFERENCES forms (account_id, id) ON DELETE CASCADE
);

CREATE TABLE form_conversions (
  account_id               uuid NOT NULL,
  id                       uuid NOT NULL,
  form_id                  uuid NOT NULL,
  contact_id               uuid,
  -- The contact as it stood after the submission (kept when the contact is later removed).
  contact                  jsonb NOT NULL,
  ip                       text,
  page_url                 text,
  submitted_fields         jsonb NOT NULL DEFAULT '{}',
  confirmation_message_id  uuid,
  -- Why no confirmation was queued ({code, description}); NULL when one was, or none is configured.
  confirmation_error       jsonb,
  submitted_at             timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, id),
  FOREIGN KEY (account_id, form_id) REFERENCES forms (account_id, id) ON DELETE CASCADE
);
CREATE INDEX form_conversions_form ON form_conversions (account_id, form_id, submitted_at DESC, id DESC);
