import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabase } from '../helpers.ts';
import { testPort } from '../support/ports.ts';
import { type CliResult, sparrow, tempDataDir } from './processes.ts';

/** The failure is one line on stderr, and the exit code is not 0. */
function oneLine(r: CliResult, pattern: RegExp): void {
  assert.notEqual(r.code, 0);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${r.stderr}`);
  assert.match(lines[0], pattern);
}

describe('sparrow start: every start-up failure is one line naming its setting', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const dirs: string[] = [];
  before(async () => {
    db = await freshDatabase();
  });
  after(async () => {
    await db.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  const start = async (env: Record<string, string>) => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    return sparrow(['start'], {
      DATA_DIR: dataDir,
      PORT: String(await testPort()),
      EXTERNALS_PORT: String(await testPort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...env,
    });
  };

  it('refuses a BOOTSTRAP_ACCOUNT_ID that is not a UUID', async () => {
    const r = await start({
      DATABASE_URL: db.url,
      BOOTSTRAP_ACCOUNT_ID: 'acc_demo',
      BOOTSTRAP_CLIENT_ID: 'demo',
      BOOTSTRAP_CLIENT_SECRET: 'a-long-enough-bootstrap-secret',
    });
    oneLine(r, /BOOTSTRAP_ACCOUNT_ID must be a UUID .*"acc_demo"/);
    assert.equal(r.code, 2);
  });

  it('names PORT, or EXTERNALS_PORT, when the port is in use', async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as net.AddressInfo).port);
    try {
      oneLine(
        await start({ DATABASE_URL: db.url, PORT: port }),
        new RegExp(`port ${port} .* in use.* set PORT `),
      );
      oneLine(
        await start({ DATABASE_URL: db.url, EXTERNALS_PORT: port }),
        new RegExp(`port ${port} .* in use.* set EXTERNALS_PORT `),
      );
    } finally {
      busy.close();
    }
  });

  it('explains a DATABASE_URL that is malformed, unreachable, or has wrong credentials', async () => {
    oneLine(
      await start({ DATABASE_URL: 'localhost:5432/sparrow' }),
      /DATABASE_URL must be a URL such as postgres:/,
    );
    const nobody = await testPort();
    oneLine(
      await start({ DATABASE_URL: `postgres://postgres:x@127.0.0.1:${nobody}/sparrow` }),
      new RegExp(`nothing accepts connections at 127.0.0.1:${nobody}.*check DATABASE_URL`),
    );
    // A role that does not exist is refused whatever the server's authentication method (a server
    // that trusts loopback connections, as CI's PostgreSQL does, accepts any password).
    const wrong = new URL(db.url);
    wrong.username = 'sparrow_no_such_role';
    wrong.password = 'not-the-password';
    oneLine(await start({ DATABASE_URL: wrong.toString() }), /refused the credentials .*check DATABASE_URL/);
  });

  it('refuses a DATA_DIR that is a file, naming the setting', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    const file = path.join(dir, 'not-a-folder');
    fs.writeFileSync(file, 'x');
    oneLine(
      await start({ DATA_DIR: file }),
      /DATA_DIR .*not-a-folder cannot be used as a directory .*set DATA_DIR/,
    );
  });

  it('refuses a DATA_DIR made by another PostgreSQL version', async () => {
    const dir = tempDataDir();
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'pg'));
    fs.writeFileSync(path.join(dir, 'pg', 'PG_VERSION'), '16\n');
    oneLine(
      await start({ DATA_DIR: dir }),
      /holds a PostgreSQL 16 data directory .* PostgreSQL 18: set DATA_DIR/,
    );
  });
});

describe('sparrow help', () => {
  for (const args of [['--help'], ['help'], ['-h'], ['accounts', '--help'], ['start', '--help']]) {
    it(`prints the usage for "sparrow ${args.join(' ')}" and exits 0`, async () => {
      const r = await sparrow(args);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^usage: sparrow <command>/);
      assert.match(r.stdout, /accounts credit ACCOUNT_ID AMOUNT/);
    });
  }
});
