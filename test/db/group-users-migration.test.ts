/**
 * Migration 0353 on a database whose groups stored their users as free-form JSON: entries naming a
 * console user of the group's account (by id, or by e-mail in any case) become links, in order,
 * with their mobile; a person named twice is linked once; the entries naming nobody of the account
 * are kept in `legacy_users`, not dropped; the groups then show the linked users.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createPool, type Db } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/create-account.ts';
import { getGroup } from '../../src/domain/numbers/get-group.ts';
import { newId } from '../../src/util/ids.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';

const ADMIN_URL = process.env.SPARROW_TEST_ADMIN_URL;
const PREFIX = process.env.SPARROW_TEST_PREFIX ?? 'sparrow_t_x_';
const DIR = path.join(PACKAGE_ROOT, 'src', 'db', 'migrations');
const LINKING = '0353_group_users.sql';

/** Applies the migration files for which `pick` holds, in order, each in its own transaction. */
async function apply(url: string, pick: (file: string) => boolean): Promise<void> {
  const files = (await fs.readdir(DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f) && pick(f)).sort();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const f of files) {
      await client.query('BEGIN');
      await client.query(await fs.readFile(path.join(DIR, f), 'utf8'));
      await client.query('COMMIT');
    }
  } finally {
    await client.end();
  }
}

describe('migration 0353: group users become links to the console users of the account', () => {
  const name = `${PREFIX}mig_${randomBytes(4).toString('hex')}`;
  let url: string;
  let db: Db;
  let accountId: string;
  let otherId: string;
  const [ann, ben, cy] = [newId(), newId(), newId()];
  const groupId = newId();

  before(async () => {
    if (!ADMIN_URL) throw new Error('run the tests with `npm test` (it prepares the database)');
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const u = new URL(ADMIN_URL);
    u.pathname = `/${name}`;
    url = u.toString();
    await apply(url, (f) => f < LINKING);
    db = createPool(url, 4);
    ({
      account: { id: accountId },
    } = await createAccount(db, { name: 'Before 0353' }));
    ({
      account: { id: otherId },
    } = await createAccount(db, { name: 'Another' }));
    await db.query(
      `INSERT INTO users (id, email, first_name, last_name) VALUES
         ($1, 'ann@example.com', 'Ann', 'Arbor'), ($2, 'ben@example.com', 'Ben', 'Nevis'),
         ($3, 'cy@example.com', 'Cy', 'Press')`,
      [ann, ben, cy],
    );
    await db.query(
      `INSERT INTO account_users (account_id, user_id, role) VALUES
         ($1, $3, 'Member'), ($1, $4, 'Viewer'), ($2, $5, 'Administrator')`,
      [accountId, otherId, ann, ben, cy],
    );
    const stored = [
      { id: 'free-form-1', email: 'Ben@Example.com', firstName: 'B.' },
      { id: 'x', email: 'stranger@example.com', firstName: 'Stranger' },
      { id: ann, mobile: { country: 'US', number: '+14155552671', valid: true, lineType: 'fixedOrMobile' } },
      { email: 'cy@example.com' },
      { email: 'ben@example.com', firstName: 'twice' },
    ];
    await db.query(`INSERT INTO groups (account_id, id, name, users) VALUES ($1, $2, 'Support', $3)`, [
      accountId,
      groupId,
      JSON.stringify(stored),
    ]);
    await apply(url, (f) => f >= LINKING);
  });
  after(async () => {
    await db?.end();
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  });

  it('links the members named, in order, once each, with their mobile', async () => {
    const group = await getGroup(db, accountId, groupId);
    assert.deepEqual(
      group.users.map((u) => [u.id, u.email, u.firstName, u.role, u.mobile?.number ?? null]),
      [
        [ben, 'ben@example.com', 'Ben', 'Viewer', null],
        [ann, 'ann@example.com', 'Ann', 'Member', '+14155552671'],
      ],
    );
  });

  it('keeps the entries that named nobody of the account in legacy_users', async () => {
    const { rows } = await db.query('SELECT legacy_users FROM groups WHERE account_id = $1 AND id = $2', [
      accountId,
      groupId,
    ]);
    assert.deepEqual(rows[0].legacy_users, [
      { id: 'x', email: 'stranger@example.com', firstName: 'Stranger' },
      { email: 'cy@example.com' },
    ]);
  });
});
