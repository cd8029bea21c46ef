import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freshDatabase } from '../helpers.ts';

const run = promisify(execFile);
const BIN = path.resolve('bin/sparrow.js');

describe('sparrow routes', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  before(async () => {
    db = await freshDatabase();
  });
  after(() => db.drop());

  const sparrow = (...args: string[]) =>
    run(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: db.url } });
  const lines = (out: string) =>
    out
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l));

  it("adds, lists and removes the operator's default routes and an account's", async () => {
    const made = JSON.parse(
      (await sparrow('routes', 'add', '--prefix', '+44', '--providers', 'smpp:1:70,twilio:1:30,simulator:2'))
        .stdout,
    );
    assert.equal(made.prefix, '44');
    assert.deepEqual(made.providers, [
      { provider: 'smpp', priority: 1, weight: 70 },
      { provider: 'twilio', priority: 1, weight: 30 },
      { provider: 'simulator', priority: 2, weight: 1 },
    ]);
    const all = JSON.parse((await sparrow('routes', 'add', '--providers', 'simulator')).stdout);
    assert.equal(all.prefix, undefined);
    assert.deepEqual(
      lines((await sparrow('routes', 'list')).stdout).map((r) => r.id),
      [made.id, all.id],
    );

    const acct = JSON.parse((await sparrow('accounts', 'create', '--name', 'Routed')).stdout);
    const own = JSON.parse(
      (
        await sparrow(
          'routes',
          'add',
          '--account',
          acct.accountId,
          '--country',
          'gb',
          '--providers',
          'twilio',
        )
      ).stdout,
    );
    assert.equal(own.country, 'GB');
    assert.deepEqual(
      lines((await sparrow('routes', 'list', '--account', acct.accountId)).stdout).map((r) => r.id),
      [own.id],
    );
    // The default table and the account's are apart: removing names the right table.
    await assert.rejects(sparrow('routes', 'remove', own.id), /Route not found/);
    assert.equal(
      JSON.parse((await sparrow('routes', 'remove', '--account', acct.accountId, own.id)).stdout).deleted,
      true,
    );
    assert.equal(JSON.parse((await sparrow('routes', 'remove', made.id)).stdout).deleted, true);
    assert.deepEqual(
      lines((await sparrow('routes', 'list')).stdout).map((r) => r.id),
      [all.id],
    );
  });

  it('takes a provider instance name, and notes one this configuration does not have', async () => {
    const env = {
      PROVIDERS: JSON.stringify([
        { name: 'carrier-b', kind: 'smpp', url: 'smpp://127.0.0.1:9', systemId: 'b', password: 'secret-b' },
      ]),
    };
    const { stdout, stderr } = await run(
      process.execPath,
      [BIN, 'routes', 'add', '--prefix', '49', '--providers', 'carrier-b:1,carrier-c:2,simulator:3'],
      { env: { ...process.env, DATABASE_URL: db.url, ...env } },
    );
    assert.deepEqual(
      JSON.parse(stdout).providers.map((p: { provider: string }) => p.provider),
      ['carrier-b', 'carrier-c', 'simulator'],
    );
    assert.match(stderr, /carrier-c is not configured here .*messages pass it over/);
    assert.doesNotMatch(stderr, /carrier-b|secret-b/);
  });

  it('refuses bad routes with the reason, and bad command lines with exit 2', async () => {
    const fails = async (args: string[], code: number, pattern: RegExp) =>
      assert.rejects(sparrow(...args), (err: { code: number; stderr: string }) => {
        assert.equal(err.code, code, err.stderr);
        assert.match(err.stderr, pattern);
        return true;
      });
    await fails(['routes', 'add', '--prefix', '1'], 2, /--providers is needed/);
    await fails(['routes', 'add', '--providers', 'smpp:x'], 2, /priority must be an integer/);
    await fails(['routes', 'add', '--providers', 'Carrier X'], 1, /instance name.*ROUTE-003/);
    await fails(['routes', 'add', '--prefix', '44', '--country', 'GB', '--providers', 'smpp'], 1, /not both/);
    await fails(['routes', 'add', '--prefix', "1'; DROP TABLE routes", '--providers', 'smpp'], 1, /prefix/);
    await fails(['routes', 'remove', 'abc'], 2, /not a route id/);
    await fails(['routes', 'list', '--account', 'abc'], 2, /not an account id/);
    await fails(['routes', 'list', '--account', '01937c1e-0000-7000-8000-00000000abcd'], 1, /no account/);
  });
});
