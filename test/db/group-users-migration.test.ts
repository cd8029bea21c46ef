/**
 * Migration 0353 on a database whose groups stored their users as free-form JSON: entries naming a
 * console user of the group's account (by id, or by e-mail in any case) become links, in order,
 * with their mobile; a person named twice is linked once; the entries naming nobody of the account
 * are kept in `legacy_users`, not dropped; the groups then show the linked users.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPool, type Db } from '../../src/db/client.ts';
import { createAccount } from '../../src/domain/accounts/create-account.ts';
import { getGroup } from '../../src/domain/numbers/get-group.ts';
import { newId } from '../../src/util/ids.ts';
import { applyMigrations, createScratchDatabase, type ScratchDatabase } from '../support/migration-db.ts';

const LINKING = '0353_group_users.sql';

describe('migration 0353: group users become links to the console users of the account', () => {
  let scratch: ScratchDatabase | undefined;
  let db: Db;
  let accountId: string;
  let otherId: string;
  const [ann, ben, cy] = [newId(), newId(), newId()];
  const groupId = newId();

  before(async () => {
    scratch = await createScratchDatabase('mig');
    const url = scratch.url;
    await applyMigrations(url, (f) => f < LINKING);
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
    await applyMigrations(url, (f) => f >= LINKING);
  });
  after(async () => {
    await db?.end();
    await scratch?.drop().catch(() => {});
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
