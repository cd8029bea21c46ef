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

  it('loads only what a command needs: `--help` and `accounts create` load neither the web server nor the mailer', async () => {
    // Lists, as the process exits, the packages it loaded from node_modules (CommonJS ones, as
    // fastify, pg and nodemailer are, are in require's cache even when imported from ESM).
    const probe =
      "import{createRequire}from'node:module';const r=createRequire(process.cwd()+'/');" +
      "process.on('exit',()=>{const p=new Set(Object.keys(r.cache).map(f=>/node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));" +
      "process.stderr.write('\\nLOADED '+[...p].sort().join(',')+'\\n')})";
    const loaded = async (...args: string[]) => {
      const { stderr } = await run(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(probe)}`, BIN, ...args],
        {
          env: { ...process.env, DATABASE_URL: db.url },
        },
      );
      const line = /^LOADED (.*)$/m.exec(stderr);
      assert.ok(line, stderr);
      return line[1].split(',').filter(Boolean);
    };
    const help = await loaded('--help');
    for (const pkg of ['fastify', 'nodemailer', '@fastify/swagger-ui'])
      assert.ok(!help.includes(pkg), `--help loaded ${pkg}: ${help}`);
    const create = await loaded('accounts', 'create', '--name', 'Split build');
    assert.ok(create.includes('pg'), `accounts create: ${create}`);
    for (const pkg of ['fastify', 'nodemailer', '@fastify/swagger-ui'])
      assert.ok(!create.includes(pkg), `accounts create loaded ${pkg}: ${create}`);
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

  it('creates console users with a password or an invitation link, and resets a password by link', async () => {
    const acct = JSON.parse((await sparrow('accounts', 'create', '--name', 'CLI users')).stdout);
    const made = JSON.parse(
      (
        await sparrow(
          'users',
          'create',
          '--account',
          acct.accountId,
          '--email',
          'Ops@Example.com',
          '--password',
          'twelve chars ok',
        )
      ).stdout,
    );
    assert.equal(made.email, 'ops@example.com');
    assert.equal(made.role, 'Administrator');
    assert.equal(made.created, true);
    const invited = JSON.parse(
      (
        await sparrow(
          'users',
          'create',
          '--account',
          acct.accountId,
          '--email',
          'viewer@example.com',
          '--role',
          'Viewer',
        )
      ).stdout,
    );
    assert.match(invited.invitationLink, /\/console\/#\/accept\/inv_/);
    const reset = JSON.parse((await sparrow('users', 'reset-password', '--email', 'ops@example.com')).stdout);
    assert.match(reset.resetLink, /\/console\/#\/accept\/inv_/);
    await assert.rejects(
      sparrow('users', 'reset-password', '--email', 'ops@example.com', '--password', 'short'),
      (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 1);
        assert.match(err.stderr, /^sparrow: The password must be 12 to 128 characters\. \(USER-008\)/);
        return true;
      },
    );
    await assert.rejects(
      sparrow('users', 'create', '--account', acct.accountId, '--email', 'x@example.com', '--role', 'Owner'),
      (err: { code: number; stderr: string }) => err.code === 2 && /--role must be/.test(err.stderr),
    );
  });
});
