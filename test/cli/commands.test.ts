import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freshDatabase } from '../helpers.ts';

const run = promisify(execFile);
const BIN = path.resolve('bin/sparrow.js');

describe('sparrow CLI', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  before(async () => {
    db = await freshDatabase();
  });
  after(() => db.drop());

  const sparrow = (...args: string[]) =>
    run(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: db.url } });

  it('creates an account, a client whose secret is printed once, and revokes it', async () => {
    const acct = JSON.parse((await sparrow('accounts', 'create', '--name', 'CLI test')).stdout);
    assert.match(acct.accountId, /^[0-9a-f-]{36}$/);
    const client = JSON.parse((await sparrow('clients', 'create', '--account', acct.accountId)).stdout);
    assert.equal(client.accountId, acct.accountId);
    assert.ok(client.clientSecret.length >= 32);
    const revoked = JSON.parse((await sparrow('clients', 'revoke', client.clientId)).stdout);
    assert.equal(revoked.revoked, true);
    await assert.rejects(sparrow('clients', 'revoke', client.clientId), /no active client/);
  });

  it('refuses to run the api or worker role without DATABASE_URL', async () => {
    for (const role of ['api', 'worker']) {
      await assert.rejects(
        run(process.execPath, [BIN, role], { env: { ...process.env, DATABASE_URL: '' } }),
        (err: { code: number; stderr: string }) => {
          assert.equal(err.code, 2);
          assert.match(err.stderr, /set DATABASE_URL/);
          return true;
        },
      );
    }
  });

  it('credits a balance and rejects unknown commands with usage and exit code 2', async () => {
    const acct = JSON.parse((await sparrow('accounts', 'create')).stdout);
    const credited = JSON.parse((await sparrow('accounts', 'credit', acct.accountId, '5.5')).stdout);
    assert.equal(credited.balance, 25.5);
    await assert.rejects(sparrow('frobnicate'), (err: { code: number; stderr: string }) => {
      assert.equal(err.code, 2);
      assert.match(err.stderr, /usage: sparrow/);
      return true;
    });
  });
});
