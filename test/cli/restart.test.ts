import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { processAlive } from '../../src/db/postmaster.ts';
import { pidFile, postmasterPid, ready, sparrow, stopService, suiteServices } from './processes.ts';

const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;

// The two tests run at once, each on a DATA_DIR of its own: the refused start in the first waits
// 10 s for the running service to stop (as a start beside a service that is shutting down would)
// before it gives up, and the second's processes run meanwhile.
describe('the embedded PostgreSQL across crashes and one-off commands', { concurrency: true }, () => {
  const services = suiteServices();

  it('after kill -9 of the service, the next start stops the orphaned PostgreSQL and comes up ready', async () => {
    const dir = services.dataDir();
    const first = await services.start(dir);
    const orphan = postmasterPid(dir);
    first.child.kill('SIGKILL');
    await first.exited;
    assert.ok(await processAlive(orphan), 'the embedded PostgreSQL outlives its killed parent');

    const second = await services.start(dir);
    assert.ok(!(await processAlive(orphan)), 'the orphan was stopped');
    assert.notEqual(postmasterPid(dir), orphan);
    assert.equal(json(fs.readFileSync(path.join(dir, 'server.json'), 'utf8')).ownerPid, second.child.pid);
    assert.match(second.output(), /left running .* by a process that is gone: stopping it/);

    // While it runs, another start on the same DATA_DIR is refused and leaves it alone.
    const third = await sparrow(['start'], {
      DATA_DIR: dir,
      PORT: '0',
      EXTERNALS_PORT: '0',
      HOST: '127.0.0.1',
    });
    assert.equal(third.code, 1);
    assert.match(third.stderr.trim(), /^sparrow: DATA_DIR .* is in use by another Sparrow process \(pid \d+/);
    assert.ok(await ready(second.port));
    assert.equal(await stopService(second), 0);
  });

  it('with no service running, a CLI command starts a server of its own and stops it', async () => {
    const dir = services.dataDir();
    const env = { DATA_DIR: dir };
    const created = await sparrow(['accounts', 'create'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.ok(!fs.existsSync(pidFile(dir)), 'its server is stopped');
    assert.ok(!fs.existsSync(path.join(dir, 'server.json')));

    // A pid file naming a live process that is not PostgreSQL on this directory is stale.
    fs.writeFileSync(pidFile(dir), `${process.pid}\n${path.join(dir, 'pg')}\n0\n5432\n\n`);
    const again = await sparrow(['accounts', 'credit', json(created.stdout).accountId as string, '1'], env);
    assert.equal(again.code, 0, again.stderr);
  });
});
