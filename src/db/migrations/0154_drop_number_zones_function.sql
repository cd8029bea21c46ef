-- The prefix lookup has one definition, numberZonesLateral (src/db/queries/phone-zones.ts), inlined
-- where it is used; the function of migration 0152 had become a second copy used by nothing.
DROP FUNCTION sparrow_number_zones(text);
