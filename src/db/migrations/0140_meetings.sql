-- Meetings: bookable meeting event types (each owns a public booking slug) and the meetings booked on them.

-- btree_gist lets one exclusion constraint combine equality on the event with overlap of time ranges.
-- It is a trusted extension (PostgreSQL 13+): a database owner may create it without superuser.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE meeting_events (
  account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                  uuid NOT NULL,
  name                text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description         text,
  -- The public booking address names the event by slug alone, so it is unique across the service.
  slug                text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9-]{3,64}$'),
  durations           integer[] NOT NULL CHECK (cardinality(durations) BETWEEN 1 AND 10),
  slot_increment      integer CHECK (slot_increment BETWEEN 5 AND 1440),
  timezone            text NOT NULL,
  -- Weekly availability in the officeHours `times` shape: {sun..sat: [{start:{hour,minute}, end:{hour,minute}}]}.
  availability        jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(availability) = 'object'),
  buffer_minutes      integer NOT NULL DEFAULT 0 CHECK (buffer_minutes BETWEEN 0 AND 1440),
  min_notice_minutes  integer NOT NULL DEFAULT 0 CHECK (min_notice_minutes >= 0),
  horizon_days        integer NOT NULL DEFAULT 60 CHECK (horizon_days BETWEEN 1 AND 365),
  hosts               jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(hosts) = 'array'),
  active              boolean NOT NULL DEFAULT true,
  -- Reminder before each meeting: minutes before the start (NULL = none) and whether it goes by SMS.
  reminder_minutes    integer CHECK (reminder_minutes BETWEEN 1 AND 10080),
  reminder_sms        boolean NOT NULL DEFAULT true,
  created_at          timestamptz NOT NULL DEFAULT now(),
  created_by          jsonb NOT NULL DEFAULT '{}',
  updated_at          timestamptz NOT NULL DEFAULT now(),
  updated_by          jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id)
);
CREATE INDEX meeting_events_created ON meeting_events (account_id, created_at DESC, id DESC);

CREATE TABLE meetings (
  account_id        uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  id                uuid NOT NULL,
  -- The event type it was booked on; NULL once that event type is deleted (the meeting stays).
  event_id          uuid,
  -- Copied from the event type at booking, so later edits of the type do not rewrite history.
  name              text NOT NULL,
  description       text,
  timezone          text NOT NULL,
  notes             text,
  start_at          timestamptz NOT NULL,
  end_at            timestamptz NOT NULL CHECK (end_at > start_at),
  -- end_at plus the event's buffer: the time no other meeting of the event may start before.
  blocked_until     timestamptz NOT NULL CHECK (blocked_until >= end_at),
  status            text NOT NULL DEFAULT 'upcoming' CHECK (status IN ('upcoming', 'cancelled', 'completed')),
  hosts             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(hosts) = 'array'),
  attendees         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attendees) = 'array'),
  -- The reminder timer: due at start − reminder; sent_at set in the transaction that queues it (once).
  reminder_due_at   timestamptz,
  reminder_sms      boolean NOT NULL DEFAULT true,
  reminder_sent_at  timestamptz,
  cancelled_at      timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  created_by        jsonb NOT NULL DEFAULT '{}',
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by        jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, id),
  FOREIGN KEY (account_id, event_id) REFERENCES meeting_events (account_id, id) ON DELETE SET NULL (event_id),
  -- Two live meetings of one event type never overlap (buffer included): of two concurrent bookings
  -- of the same slot exactly one commits, the other fails with exclusion_violation (23P01).
  CONSTRAINT meetings_no_overlap EXCLUDE USING gist (
    event_id WITH =,
    tstzrange(start_at, blocked_until, '[)') WITH &&
  ) WHERE (status <> 'cancelled' AND event_id IS NOT NULL)
);
-- Listing is by start time.
CREATE INDEX meetings_start ON meetings (account_id, start_at, id);
-- The reminder worker's scan: reminders not yet sent.
CREATE INDEX meetings_reminder_due ON meetings (reminder_due_at)
  WHERE reminder_due_at IS NOT NULL AND reminder_sent_at IS NULL AND status = 'upcoming';
-- The completion sweep: upcoming meetings by end.
CREATE INDEX meetings_upcoming_end ON meetings (end_at) WHERE status = 'upcoming';
