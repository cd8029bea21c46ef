import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_PRICE_TABLE, parsePriceTable } from '../../src/messaging/pricing.ts';
import { startTestService, type TestService } from '../helpers.ts';

describe('sparrow_price (the price of a message: segments × its country’s rate)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function price(segments: number, country: string | null, table: object): Promise<string> {
    const { rows } = await svc.db.query<{ price: string }>(
      'SELECT sparrow_price($1::int, $2::text, $3::jsonb)::text AS price',
      [segments, country, JSON.stringify(table)],
    );
    return rows[0].price;
  }

  it('charges each segment at the rate of the recipient’s country', async () => {
    assert.equal(await price(1, 'US', DEFAULT_PRICE_TABLE), '0.0079');
    assert.equal(await price(3, 'GB', DEFAULT_PRICE_TABLE), '0.1200');
  });

  it('reads the country in any case', async () => {
    assert.equal(await price(2, 'gb', DEFAULT_PRICE_TABLE), '0.0800');
  });

  it('charges the default rate for a country the table does not list, or an unknown one', async () => {
    assert.equal(await price(2, 'JP', DEFAULT_PRICE_TABLE), '0.1000');
    assert.equal(await price(1, null, DEFAULT_PRICE_TABLE), '0.0500');
  });

  it('rounds to four decimals, and a configured table (PRICE_TABLE) overrides the built-in rates', async () => {
    const table = parsePriceTable('{"us":0.00333,"default":0.123456}');
    assert.equal(await price(1, 'US', table), '0.0033');
    assert.equal(await price(3, 'US', table), '0.0100');
    assert.equal(await price(1, 'JP', table), '0.1235');
    assert.equal(await price(1, 'FR', table), '0.0700'); // the built-in rates stay under it
  });

  it('prices nothing for a message of no segment', async () => {
    assert.equal(await price(0, 'US', DEFAULT_PRICE_TABLE), '0.0000');
  });
});
