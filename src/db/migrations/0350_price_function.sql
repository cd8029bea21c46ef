-- The price of a message, named once (docs/architecture.md, "the send path"): segments × the rate of
-- the recipient's country in the price table (src/messaging/pricing.ts, handed to each
-- statement as jsonb), else its `default` rate, rounded to 4 decimals. The bulk insert
-- (db/queries/message-bulk.ts) and the single send (db/queries/messages.ts) each wrote this
-- expression themselves. A one-expression SQL function, so the planner inlines it: no call per row.
-- test/messaging/pricing.test.ts holds it to the rule.
CREATE FUNCTION sparrow_price(segments integer, country text, prices jsonb)
 RETURNS numeric
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
  SELECT round(segments * coalesce((prices ->> upper(country))::numeric, (prices ->> 'default')::numeric), 4)
$function$;
