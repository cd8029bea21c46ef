-- Which claim holds a range: a token written when the range is claimed or taken over. A dispatcher
-- renews its range (and marks a group of it in flight) only while the token is still its own, so a
-- worker that stalled past its lease, whose range another worker took over, cannot send the range
-- a second time. Ranges claimed before this migration have none (their lease simply runs out).
ALTER TABLE dispatch_ranges ADD COLUMN owner uuid;
