import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { processAlive } from '../../src/db/postmaster.ts';
import {
  pidFile,
  postmasterPid,
  postmastersOn,
  ready,
  requestToken,
  type Service,
  sparrow,
  stopService,
  suiteServices,
} from './processes.ts';

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

async function token(svc: Service, clientId: string, clientSecret: string): Promise<number> {
  return (await requestToken(svc.port, clientId, clientSecret)).status;
}

describe('the admin CLI beside a running service (embedded PostgreSQL in DATA_DIR)', () => {
  const services = suiteServices();

  it('runs every command on the service’s own server and leaves its PostgreSQL, lock file included, as it was', async () => {
    const dir = services.dataDir();
    const svc = await services.start(dir);
    const record = json(fs.readFileSync(path.join(dir, 'server.json'), 'utf8'));
    assert.equal(fs.statSync(path.join(dir, 'server.json')).mode & 0o777, 0o600);
    assert.equal(record.ownerPid, svc.child.pid);
    assert.equal(record.role, 'service');
    const pm = postmasterPid(dir);
    assert.equal(record.postmasterPid, pm);
    // PostgreSQL rereads its lock file (pg/postmaster.pid) once a minute and shuts down when the
    // file is gone or names another pid (RecheckDataDirLockFile, in the postmaster's loop): a
    // command that removed or rewrote it would stop the service's database a minute later. So the
    // file must be left exactly as it is: the same file (inode), the same bytes. Comparing them
    // once every command has exited checks what that once-a-minute recheck would read, without
    // waiting a minute for it.
    const lockFile = () => ({
      ino: fs.statSync(pidFile(dir)).ino,
      text: fs.readFileSync(pidFile(dir), 'utf8'),
    });
    const lockBefore = lockFile();
    assert.equal(Number(lockBefore.text.split('\n')[0]), pm);
    const env = { DATA_DIR: dir };

    const created = await sparrow(['accounts', 'create', '--name', 'Beside', '--balance', '10'], env);
    assert.equal(created.code, 0, created.stderr);
    const accountId = json(created.stdout).accountId as string;
    const credited = await sparrow(['accounts', 'credit', accountId, '100'], env);
    assert.equal(credited.code, 0, credited.stderr);
    assert.equal(json(credited.stdout).balance, 110);

    const client = await sparrow(['clients', 'create', '--account', accountId], env);
    assert.equal(client.code, 0, client.stderr);
    const { clientId, clientSecret } = json(client.stdout) as { clientId: string; clientSecret: string };
    // The service sees what the CLI wrote: they share one database.
    assert.equal(await token(svc, clientId, clientSecret), 200);
    const revoked = await sparrow(['clients', 'revoke', clientId], env);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(await token(svc, clientId, clientSecret), 401);

    // The rest at once.
    const [rotated, migrated, missing] = await Promise.all([
      sparrow(['keys', 'rotate'], env),
      sparrow(['migrate'], env),
      sparrow(['accounts', 'credit', '01937c1e-0000-7000-8000-00000000dead', '5'], env),
    ]);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.ok(json(rotated.stdout).kid);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /migrations applied/);

    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim(), 'sparrow: no account 01937c1e-0000-7000-8000-00000000dead');

    assert.ok(await ready(svc.port), 'the service answers /readyz after the CLI commands');
    const again = await sparrow(['clients', 'create', '--account', accountId], env);
    const second = json(again.stdout) as { clientId: string; clientSecret: string };
    assert.equal(await token(svc, second.clientId, second.clientSecret), 200);

    // The service's server is untouched: same postmaster, and the lock file its recheck reads is
    // the one it wrote, byte for byte; the commands (all exited) started no server of their own.
    assert.equal(postmasterPid(dir), pm);
    assert.ok(await processAlive(pm));
    assert.deepEqual(lockFile(), lockBefore, 'pg/postmaster.pid is left as PostgreSQL wrote it');
    assert.deepEqual(postmastersOn(dir) ?? [pm], [pm], 'no other PostgreSQL runs on the data directory');
    assert.equal(json(fs.readFileSync(path.join(dir, 'server.json'), 'utf8')).ownerPid, svc.child.pid);

    assert.equal(await stopService(svc), 0);
    assert.ok(!fs.existsSync(path.join(dir, 'server.json')), 'a clean stop removes server.json');
    assert.ok(!fs.existsSync(pidFile(dir)), 'a clean stop stops PostgreSQL');
  });
});
