import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { plainArray, textArray } from '../../src/db/arrays.ts';
import { freshDatabase } from '../helpers.ts';

describe('array literals read back by PostgreSQL', () => {
  let db: { url: string; drop: () => Promise<void> };
  let client: pg.Client;
  before(async () => {
    db = await freshDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client.end();
    await db.drop();
  });

  it('reads uuids, numbers, booleans and nulls back as they were', async () => {
    const ids = ['0190a0a0-0000-7000-8000-000000000001', null, '0190a0a0-0000-7000-8000-0000000000ff'];
    const { rows } = await client.query(
      'SELECT $1::uuid[] AS ids, $2::int[] AS ints, $3::float8[] AS floats, $4::bool[] AS bools',
      [
        plainArray(ids),
        plainArray([1, -2, null]),
        plainArray([0.0079, 1e-7, 12.5]),
        plainArray([true, false, null]),
      ],
    );
    assert.deepEqual(rows[0], {
      ids,
      ints: [1, -2, null],
      floats: [0.0079, 1e-7, 12.5],
      bools: [true, false, null],
    });
  });

  it('reads any text back unchanged: quotes, backslashes, braces, commas, NULL as a word, empty, unicode', async () => {
    const texts = [
      'plain',
      'a "quoted" word',
      'back\\slash\\',
      '{braces},commas',
      'NULL',
      '',
      'é😀\n\t',
      null,
      ' spaced ',
    ];
    const { rows } = await client.query('SELECT $1::text[] AS t, $2::jsonb[] AS j', [
      textArray(texts),
      textArray([JSON.stringify({ code: 'X', description: 'say "hi" \\ bye' }), null]),
    ]);
    assert.deepEqual(rows[0].t, texts);
    assert.deepEqual(rows[0].j, [{ code: 'X', description: 'say "hi" \\ bye' }, null]);
  });

  it('reads an empty array as empty', async () => {
    const { rows } = await client.query('SELECT cardinality($1::uuid[]) AS n, cardinality($2::text[]) AS m', [
      plainArray([]),
      textArray([]),
    ]);
    assert.deepEqual(rows[0], { n: 0, m: 0 });
  });
});
