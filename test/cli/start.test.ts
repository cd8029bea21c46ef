import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { eventually, freshDatabase } from '../helpers.ts';
import { listenerEnv, ready, requestToken } from '../support/child-service.ts';

const BIN = path.resolve('bin/sparrow.js');

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

async function token(port: number, clientId: string, clientSecret: string) {
  const res = await requestToken(port, clientId, clientSecret);
  assert.equal(res.status, 200);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('sparrow start', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('starts embedded PostgreSQL, prints development credentials once, and stops cleanly on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-start-'));
    fs.chmodSync(dir, 0o755);
    dirs.push(dir);
    const { port, externalsPort, env: listeners } = await listenerEnv();
    const env = { DATA_DIR: dir, ...listeners };
    const first = start(env);
    const out = await eventually(
      async () => (/^\s+password:\s+\S+$/m.test(first.output()) ? first.output() : undefined),
      60_000,
      100,
    );
    assert.match(out, /created a development account; its credentials/);
    const accountId = /SPARROW_ACCOUNT_ID=(\S+)/.exec(out)![1];
    const clientId = /SPARROW_CLIENT_ID=(\S+)/.exec(out)![1];
    const clientSecret = /SPARROW_CLIENT_SECRET=(\S+)/.exec(out)![1];
    const file = path.join(dir, 'credentials.json');
    // The console's first administrator is printed too, and signs in with what was printed.
    const consoleEmail = /^\s+email:\s+(\S+)$/m.exec(out)![1];
    const consolePassword = /^\s+password:\s+(\S+)$/m.exec(out)![1];
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), {
      accountId,
      clientId,
      clientSecret,
      consoleEmail,
      consolePassword,
    });
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const signIn = await fetch(`http://127.0.0.1:${port}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: consoleEmail, password: consolePassword }),
    });
    assert.equal(signIn.status, 200);
    const session = (await signIn.json()) as { data: { accounts: { id: string; role: string }[] } };
    assert.deepEqual(
      session.data.accounts.map((a) => [a.id, a.role]),
      [[accountId, 'Administrator']],
    );
    const t = await token(port, clientId, clientSecret);
    const acct = await fetch(`http://127.0.0.1:${port}/v1/accounts/${accountId}`, {
      headers: { authorization: `Bearer ${t}` },
    });
    assert.equal(acct.status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${externalsPort}/readyz`)).status, 200);
    assert.equal(await stop(first.child), 0);
    assert.match(first.output(), /stopped/);

    // A second start reuses the data: no new credentials, the old ones still work.
    const second = start(env);
    await eventually(async () => /workers running|API listening/.test(second.output()), 60_000, 100);
    await eventually(() => ready(port), 30_000, 100);
    assert.doesNotMatch(second.output(), /SPARROW_CLIENT_SECRET|password:/);
    await token(port, clientId, clientSecret);
    assert.equal(await stop(second.child), 0);
  });

  it('under NODE_ENV=production, names the first account the bootstrap account, not a development one', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-start-'));
    fs.chmodSync(dir, 0o755);
    dirs.push(dir);
    const { port, env: listeners } = await listenerEnv();
    const svc = start({ DATA_DIR: dir, NODE_ENV: 'production', ...listeners });
    const out = await eventually(
      async () => (/^\s+password:\s+\S+$/m.test(svc.output()) ? svc.output() : undefined),
      60_000,
      100,
    );
    assert.match(out, /created the bootstrap account \(the database held none; BOOTSTRAP_ACCOUNT_ID/);
    assert.doesNotMatch(out, /development account/);
    const accountId = /SPARROW_ACCOUNT_ID=(\S+)/.exec(out)![1];
    const t = await token(
      port,
      /SPARROW_CLIENT_ID=(\S+)/.exec(out)![1],
      /SPARROW_CLIENT_SECRET=(\S+)/.exec(out)![1],
    );
    const acct = await fetch(`http://127.0.0.1:${port}/v1/accounts/${accountId}`, {
      headers: { authorization: `Bearer ${t}` },
    });
    assert.equal(acct.status, 200);
    assert.equal(((await acct.json()) as { data: { name: string } }).data.name, 'Bootstrap account');
    assert.equal(await stop(svc.child), 0);
  });

  it('creates the BOOTSTRAP_* account and client on DATABASE_URL, idempotently', async () => {
    const db = await freshDatabase();
    try {
      const { port, env: listeners } = await listenerEnv();
      const env = {
        DATABASE_URL: db.url,
        ...listeners,
        BOOTSTRAP_ACCOUNT_ID: '01937c1e-0000-7000-8000-000000000001',
        BOOTSTRAP_CLIENT_ID: 'bootstrap-client',
        BOOTSTRAP_CLIENT_SECRET: 'bootstrap-secret-which-is-long-enough',
      };
      for (let round = 0; round < 2; round++) {
        const svc = start(env);
        await eventually(() => ready(port), 60_000, 100);
        const t = await token(port, env.BOOTSTRAP_CLIENT_ID, env.BOOTSTRAP_CLIENT_SECRET);
        const res = await fetch(`http://127.0.0.1:${port}/v1/accounts/${env.BOOTSTRAP_ACCOUNT_ID}`, {
          headers: { authorization: `Bearer ${t}` },
        });
        assert.equal(res.status, 200);
        assert.equal(await stop(svc.child), 0);
      }
    } finally {
      await db.drop();
    }
  });
});
