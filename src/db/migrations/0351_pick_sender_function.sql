-- The sender a bulk send gives a recipient with no conversation to keep (docs/routing.md), named
-- once: among the numbers suitable for the recipient's country (`by_country`: country → number ids,
-- suitableSenders in src/messaging/senders.ts; null when every number suits every
-- country), else among the whole pool, by a stable hash of the contact's id, so that a contact
-- always gets the same number from the same pool. db/queries/message-bulk.ts wrote this inline.
-- One expression: the planner inlines it. test/messaging/senders.test.ts holds it to the rule.
CREATE FUNCTION sparrow_pick_sender(contact uuid, country text, pool uuid[], by_country jsonb)
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT coalesce(
    ((by_country -> upper(country)) ->>
       (abs(hashtext(contact::text)::bigint) % jsonb_array_length(by_country -> upper(country)))::int)::uuid,
    pool[1 + (abs(hashtext(contact::text)::bigint) % cardinality(pool))])
$function$;
