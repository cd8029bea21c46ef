/**
 * The simulator's deterministic number inventory: for each country, numbers from ranges reserved
 * for fiction and testing (US/CA 555-0100..0199, UK Ofcom drama ranges, AU ACMA test ranges), so
 * a simulated number can never be a real subscriber's.
 */
export interface InventoryNumber {
  number: string;
  country: string;
  type: 'local' | 'mobile' | 'tollfree';
  areaCode: string;
  postalCode: string;
  features: string[];
}

const US_AREAS: [string, string][] = [
  ['212', '10001'],
  ['415', '94105'],
  ['312', '60601'],
  ['305', '33101'],
  ['512', '78701'],
  ['617', '02108'],
  ['206', '98101'],
  ['303', '80202'],
  ['404', '30303'],
  ['702', '89101'],
  ['202', '20001'],
  ['213', '90012'],
];
const CA_AREAS: [string, string][] = [
  ['416', 'M5H'],
  ['604', 'V6B'],
  ['613', 'K1P'],
];

function* generate(): Generator<InventoryNumber> {
  for (const [list, country] of [
    [US_AREAS, 'US'],
    [CA_AREAS, 'CA'],
  ] as const) {
    for (const [area, postal] of list) {
      for (let line = 100; line <= 199; line++) {
        yield {
          number: `+1${area}5550${line}`,
          country,
          type: 'local',
          areaCode: area,
          postalCode: postal,
          features: ['sms', 'mms', 'voice'],
        };
      }
    }
  }
  for (let line = 0; line <= 999; line += 7) {
    yield {
      number: `+1833555${String(1000 + line).slice(-4)}`,
      country: 'US',
      type: 'tollfree',
      areaCode: '833',
      postalCode: '',
      features: ['sms', 'voice'],
    };
  }
  for (let line = 0; line <= 999; line++) {
    yield {
      number: `+447700900${String(line).padStart(3, '0')}`,
      country: 'GB',
      type: 'mobile',
      areaCode: '7700',
      postalCode: '',
      features: ['sms'],
    };
  }
  for (let line = 570; line <= 599; line++) {
    yield {
      number: `+61491570${String(line).padStart(3, '0')}`,
      country: 'AU',
      type: 'mobile',
      areaCode: '491',
      postalCode: '',
      features: ['sms'],
    };
  }
}

/** Every number the simulator can hand out, in a fixed order. */
export const SIMULATOR_INVENTORY: readonly InventoryNumber[] = [...generate()];

/** Monthly rent of a simulator number by type, in USD (the list prices of common carriers). */
export const MONTHLY_PRICE: Record<InventoryNumber['type'], number> = {
  local: 1.15,
  mobile: 1.15,
  tollfree: 2.15,
};

const BY_NUMBER = new Map(SIMULATOR_INVENTORY.map((n) => [n.number, n]));

/** The inventory entry of an E.164 number, if the simulator has it. */
export function inventoryNumber(number: string): InventoryNumber | undefined {
  return BY_NUMBER.get(number);
}
