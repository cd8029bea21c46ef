-- Calls: voice calls carriers deliver to our numbers (Twilio-compatible voice webhook, simulator).

CREATE TABLE calls (
  account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                uuid NOT NULL,
  direction         text NOT NULL DEFAULT 'inbound' CHECK (direction IN ('inbound', 'outbound')),
  -- Moves forward only: initiated → ringing → in-progress → one terminal status.
  status            text NOT NULL DEFAULT 'initiated'
                    CHECK (status IN ('initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer',
                                      'failed', 'canceled')),
  contact_id        uuid,
  phone_number_id   uuid,
  -- The number's group when the call came in (the Call shape's `group`).
  group_id          uuid,
  from_number       text NOT NULL,
  to_number         text NOT NULL,
  provider          text NOT NULL,
  provider_call_id  text NOT NULL,
  -- What we told the carrier to do: forward (Dial), voicemail (Say + Record) or reject.
  action            text NOT NULL CHECK (action IN ('forward', 'voicemail', 'reject')),
  forwarded_to      text,
  duration          integer NOT NULL DEFAULT 0 CHECK (duration >= 0),
  voicemail         boolean NOT NULL DEFAULT false,
  recording         boolean NOT NULL DEFAULT false,
  recording_url     text,
  recording_duration integer,
  transcription     text,
  ended_at          timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  created_by        jsonb NOT NULL DEFAULT '{}',
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, id),
  -- A removed contact leaves the call in the history without a contact.
  FOREIGN KEY (account_id, contact_id) REFERENCES contacts (account_id, id) ON DELETE SET NULL (contact_id)
);
-- A carrier's retried webhook for the same call finds the first row.
CREATE UNIQUE INDEX calls_provider_id ON calls (account_id, provider, provider_call_id);
-- Listing is newest first, optionally by contact.
CREATE INDEX calls_created ON calls (account_id, created_at DESC, id DESC);
CREATE INDEX calls_contact ON calls (account_id, contact_id, created_at DESC);
