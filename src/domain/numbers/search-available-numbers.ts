import type { Queryable } from '../../db/client.ts';
import { takenNumbers } from '../../db/queries/phone-numbers.ts';
import {
  type InventoryNumber,
  MONTHLY_PRICE,
  SIMULATOR_INVENTORY,
} from '../../providers/simulator/inventory.ts';

/** Filters of an available-numbers search (the compatibility notes' query). */
export interface AvailableNumbersFilter {
  country: string;
  type?: 'local' | 'mobile' | 'tollfree';
  postalCode?: string;
  /** Features every number must have: sms, mms, voice. */
  features?: string[];
  /** Digits the number must contain; `*` matches any one digit. */
  contains?: string;
  areaCode?: string;
  offset: number;
  limit: number;
}

/** `*` is any one digit; a leading `+` anchors the pattern at the country code. */
function containsPattern(contains: string): RegExp {
  const anchored = contains.startsWith('+');
  const body = contains.replace(/^\+/, '').replace(/\*/g, '[0-9]');
  return new RegExp(anchored ? `^${body}` : body);
}

/** An available number as the API shows it. */
export function presentAvailable(n: InventoryNumber) {
  return {
    number: n.number,
    country: n.country,
    type: n.type,
    areaCode: n.areaCode,
    postalCode: n.postalCode,
    features: n.features,
    provider: 'simulator',
    price: MONTHLY_PRICE[n.type],
  };
}

/**
 * Numbers the provider can hand out that match the filter, excluding those any account holds.
 * The simulator's inventory is the only one with a catalogue; carrier numbers are brought, not searched.
 */
export async function searchAvailableNumbers(
  db: Queryable,
  f: AvailableNumbersFilter,
): Promise<{ items: InventoryNumber[]; totalCount: number; offset: number; limit: number }> {
  const country = f.country.toUpperCase();
  const digits = f.contains ? containsPattern(f.contains) : undefined;
  const postal = f.postalCode?.replace(/\s+/g, '').toUpperCase();
  const matching = SIMULATOR_INVENTORY.filter(
    (n) =>
      n.country === country &&
      (!f.type || n.type === f.type) &&
      (!f.areaCode || n.areaCode === f.areaCode) &&
      (!postal || n.postalCode.toUpperCase() === postal) &&
      (!f.features || f.features.every((x) => n.features.includes(x))) &&
      (!digits || digits.test(n.number.slice(1))),
  );
  const taken = await takenNumbers(
    db,
    matching.map((n) => n.number),
  );
  const free = matching.filter((n) => !taken.has(n.number));
  return {
    items: free.slice(f.offset, f.offset + f.limit),
    totalCount: free.length,
    offset: f.offset,
    limit: f.limit,
  };
}
