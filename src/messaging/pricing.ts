/**
 * Price per segment by destination country (ISO 3166 alpha-2), in the account currency, with a
 * `default` rate for every other country. `PRICE_TABLE` (JSON, e.g. `{"US":0.01,"default":0.05}`)
 * overrides or extends the built-in table. A message costs segments × its country's rate.
 * The table in force is the configuration's (`config.priceTable`): the send path takes it as a
 * parameter; nothing here holds one for the process.
 */

/** Rates per segment by country, plus `default`. */
export type PriceTable = Record<string, number> & { default: number };

/** The built-in rates. */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  default: 0.05,
  US: 0.0079,
  CA: 0.0079,
  GB: 0.04,
  IE: 0.06,
  AU: 0.05,
  NZ: 0.1,
  DE: 0.08,
  FR: 0.07,
  ES: 0.06,
  IT: 0.07,
  NL: 0.09,
  IN: 0.002,
  BR: 0.04,
  MX: 0.03,
};

/** Parses a PRICE_TABLE value over the built-in table; throws on anything but country → rate ≥ 0. */
export function parsePriceTable(raw: string | undefined): PriceTable {
  if (raw === undefined || raw.trim() === '') return { ...DEFAULT_PRICE_TABLE };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('PRICE_TABLE must be a JSON object of country code → rate per segment');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('PRICE_TABLE must be a JSON object of country code → rate per segment');
  }
  const table: PriceTable = { ...DEFAULT_PRICE_TABLE };
  for (const [key, rate] of Object.entries(parsed)) {
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
      throw new Error(`PRICE_TABLE: the rate for "${key}" must be a number >= 0`);
    }
    table[key === 'default' ? 'default' : key.toUpperCase()] = rate;
  }
  return table;
}
