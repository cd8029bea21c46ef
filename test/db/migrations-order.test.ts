import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import pg from 'pg';
import { migrationOrderProblems, problemsInHistory } from '../../scripts/check-migrations.ts';
import { pendingMigrations } from '../../src/db/migrate.ts';
import { dumpSchema, SCHEMA_FILE } from '../../src/db/schema-dump.ts';
import { freshDatabase } from '../helpers.ts';

describe('migrations run forward only', () => {
  const files = ['0010_a.sql', '0020_b.sql', '0030_c.sql'];

  it('applies the files not yet applied, in number order', () => {
    assert.deepEqual(pendingMigrations(files, new Set(['0010_a.sql'])), ['0020_b.sql', '0030_c.sql']);
    assert.deepEqual(pendingMigrations(files, new Set(files)), []);
  });

  it('refuses a file numbered below the newest applied one, naming both', () => {
    assert.throws(
      () => pendingMigrations(files, new Set(['0010_a.sql', '0030_c.sql'])),
      /migration 0020_b\.sql is numbered below 0030_c\.sql.*forward only/,
    );
  });

  it('refuses two files that share a number', () => {
    assert.throws(() => pendingMigrations(['0010_a.sql', '0010_b.sql'], new Set()), /share the number 0010/);
  });

  it('finds a file that landed with a number below one already landed, and accepts the next number', () => {
    const log = [
      '@aaa',
      '',
      'src/db/migrations/0300_x.sql',
      '@bbb',
      '',
      'src/db/migrations/0290_y.sql',
      '@ccc',
      '',
      'src/db/migrations/0310_z.sql',
    ].join('\n');
    const problems = problemsInHistory(log, ['0305_w.sql', '0320_v.sql']);
    assert.equal(problems.length, 2);
    assert.match(problems[0], /^0290_y\.sql \(commit bbb\) is numbered at or below 0300/);
    assert.match(problems[1], /^0305_w\.sql \(not committed\) is numbered at or below 0310/);
    assert.deepEqual(problemsInHistory(log.replace('0290', '0301'), ['0320_v.sql']), []);
  });

  it("holds for this repository's own history", (t) => {
    const problems = migrationOrderProblems();
    if (problems === null) return t.skip('no git history in this checkout');
    assert.deepEqual(problems, []);
  });
});

describe('src/db/schema.sql', () => {
  it('is what the migrations build (regenerate with `npm run schema:dump`)', async (t) => {
    const database = await freshDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const version = Number((await client.query('SHOW server_version_num')).rows[0].server_version_num);
      // The file is generated on the embedded server (PostgreSQL 18); older servers build a few
      // functions differently (0033 keeps the portable uuidv7 there).
      if (version < 180000) return t.skip(`generated on PostgreSQL 18; this server is ${version}`);
      const text = await dumpSchema(client);
      const current = fs.readFileSync(SCHEMA_FILE, 'utf8');
      assert.ok(text === current, 'src/db/schema.sql is stale: run `npm run schema:dump` and commit it');
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
