import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { eventually, freshDatabase } from '../helpers.ts';
import { listenerEnv, ready, requestToken } from '../support/child-service.ts';

const BIN = path.resolve('bin/sparrow.js');

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, LOG_LEVEL: 'warn', WORKERS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => out,
    exited,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function token(port: number, id: string, secret: string): Promise<number> {
  return (await requestToken(port, id, secret)).status;
}

describe('sparrow start and SECRETS_KEY', () => {
  it('warns about plain text without a key, seals the existing rows once given one, and keeps working', async () => {
    const db = await freshDatabase();
    const client = new pg.Client({ connectionString: db.url });
    try {
      const { port, env: listeners } = await listenerEnv();
      const env = {
        DATABASE_URL: db.url,
        ...listeners,
        BOOTSTRAP_ACCOUNT_ID: '01937c1e-0000-7000-8000-000000000002',
        BOOTSTRAP_CLIENT_ID: 'secrets-client',
        BOOTSTRAP_CLIENT_SECRET: 'secrets-secret-which-is-long-enough',
      };
      const untilReady = () => eventually(() => ready(port), 60_000, 100);

      const plain = start(env);
      await untilReady();
      assert.equal(await token(port, env.BOOTSTRAP_CLIENT_ID, env.BOOTSTRAP_CLIENT_SECRET), 200);
      assert.match(plain.output(), /SECRETS_KEY is not set: .*stored in plain text/);
      assert.equal(await plain.stop(), 0);
      await client.connect();
      const kinds = async () =>
        (await client.query('SELECT jsonb_typeof(private_jwk) AS t FROM signing_keys')).rows.map((r) => r.t);
      assert.deepEqual(await kinds(), ['object']);

      const key = randomBytes(32).toString('base64');
      const sealed = start({ ...env, SECRETS_KEY: key });
      await untilReady();
      assert.doesNotMatch(sealed.output(), /plain text/);
      assert.match(sealed.output(), /secrets at rest: 1 signing keys and 0 webhooks sealed/);
      assert.deepEqual(await kinds(), ['string']);
      assert.equal(await token(port, env.BOOTSTRAP_CLIENT_ID, env.BOOTSTRAP_CLIENT_SECRET), 200);
      assert.equal(await sealed.stop(), 0);

      // Without the key the sealed rows cannot be read: start-up stops with one line naming it.
      const keyless = start(env);
      assert.equal(await keyless.exited, 2);
      assert.match(keyless.output(), /configuration error: .*SECRETS_KEY/);
    } finally {
      await client.end().catch(() => {});
      await db.drop();
    }
  });

  it('refuses a SECRETS_KEY that is not 32 bytes with one line and exit code 2', async () => {
    const bad = start({ SECRETS_KEY: 'too-short', DATABASE_URL: 'postgres://127.0.0.1:1/none' });
    assert.equal(await bad.exited, 2);
    const lines = bad.output().trim().split('\n');
    assert.equal(lines.length, 1, bad.output());
    assert.match(lines[0], /^sparrow: configuration error: SECRETS_KEY must be 32 bytes/);
    assert.ok(!lines[0].includes('too-short'));
  });
});
