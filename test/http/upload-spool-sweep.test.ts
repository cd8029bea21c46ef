import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { SPOOL_MAX_AGE_MS, sweepSpool } from '../../src/storage/spooled-upload.ts';
import { eventually, freshDatabase } from '../helpers.ts';
import { type ServiceProcess, startServiceProcess } from '../service-process.ts';

const uploads = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith('sparrow-upload-'))
    .sort();
/** A pid no process has now (one that just ended). */
const deadPid = () => {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
};
const plant = (dir: string, pid: number | undefined, ageMs = 0) => {
  const name = `sparrow-upload-${pid === undefined ? '' : `${pid}-`}${randomUUID()}.csv`;
  writeFileSync(path.join(dir, name), 'mobile\n+12025550100\n', { mode: 0o600 });
  if (ageMs > 0) {
    const t = new Date(Date.now() - ageMs);
    utimesSync(path.join(dir, name), t, t);
  }
  return name;
};

/**
 * What a killed process leaves in the spool (a CSV being uploaded: contact data) is removed when
 * the service starts again; a live process's upload is left alone.
 */
describe('the upload spool after a crash', () => {
  const dirs: string[] = [];
  const services: ServiceProcess[] = [];
  const drops: (() => Promise<void>)[] = [];
  const newDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'sparrow-sweep-test-'));
    dirs.push(d);
    return d;
  };
  after(async () => {
    for (const s of services) await s.stop();
    for (const d of drops) await d();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('removes at start-up the file of an upload cut by SIGKILL, and leaves a live one', async () => {
    const spool = newDir();
    const database = await freshDatabase();
    drops.push(database.drop);
    const env = { DATABASE_URL: database.url, WORKERS: 'false', TMPDIR: spool };
    const first = await startServiceProcess(env);
    services.push(first);
    // An upload under way: headers and half of the body sent.
    const req = http.request(`${first.api}/v1/accounts/${first.accountId}/contacts/imports`, {
      method: 'POST',
      headers: { ...first.auth, 'content-type': 'text/csv', 'content-length': '4000000' },
    });
    req.on('error', () => {});
    req.write(`mobile\n${'+12025550100\n'.repeat(150_000)}`);
    await eventually(async () => uploads(spool).length === 1, 10_000);
    const cut = uploads(spool)[0];
    assert.match(cut, new RegExp(`^sparrow-upload-${first.child.pid}-`), 'the file names its process');
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    await exited;
    req.destroy();
    assert.deepEqual(uploads(spool), [cut], 'a killed process cannot remove its file');
    // A live upload of another process (this one), begun just now.
    const live = plant(spool, process.pid);

    const second = await startServiceProcess(env);
    services.push(second);
    await eventually(async () => !uploads(spool).includes(cut), 10_000).catch(() =>
      assert.fail(`the killed upload's file is still there: ${uploads(spool).join(', ')}`),
    );
    assert.deepEqual(uploads(spool), [live]);
  });

  it('sweeps what no running upload can hold: a dead pid, its own pid from before it started, old files', async () => {
    const spool = newDir();
    const dead = plant(spool, deadPid());
    const mineBefore = plant(spool, process.pid, process.uptime() * 1000 + 60_000);
    const mineNow = plant(spool, process.pid);
    const liveOther = plant(spool, process.ppid);
    const liveOld = plant(spool, process.ppid, SPOOL_MAX_AGE_MS + 60_000);
    const unnamedOld = plant(spool, undefined, SPOOL_MAX_AGE_MS + 60_000);
    const unnamedNew = plant(spool, undefined);
    writeFileSync(path.join(spool, 'sparrow-upload-notes.txt'), 'not a spool file');
    assert.equal(await sweepSpool(spool), 4);
    assert.deepEqual(uploads(spool), [liveOther, mineNow, unnamedNew, 'sparrow-upload-notes.txt'].sort());
    for (const gone of [dead, mineBefore, liveOld, unnamedOld]) assert.ok(!uploads(spool).includes(gone));
    assert.equal(await sweepSpool(path.join(spool, 'missing')), 0, 'a missing folder is nothing to sweep');
  });
});
