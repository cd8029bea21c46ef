import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshDatabase } from '../helpers.ts';
import { type ServiceProcess, startServiceProcess } from '../service-process.ts';

// The service as `npm start` runs it, with its 256 MB heap cap: an in-process test service has no
// cap, which is how a 100,000-row upload passed here while it crashed `npm start`.
describe('CSV uploads under the heap cap of npm start', () => {
  let svc: ServiceProcess;
  let drop: () => Promise<void>;
  before(async () => {
    const database = await freshDatabase();
    drop = database.drop;
    svc = await startServiceProcess({ DATABASE_URL: database.url, WORKERS: 'false' });
  });
  after(async () => {
    await svc?.stop();
    await drop?.();
  });

  it('imports 100,000 rows of country,firstName,lastName,mobile and keeps serving', async () => {
    const lines = ['country,firstName,lastName,mobile'];
    for (let i = 0; i < 100_000; i++)
      lines.push(`US,First${i},Last${i},202${String(3_100_000 + i).padStart(7, '0')}`);
    const res = await fetch(`${svc.api}/v1/accounts/${svc.accountId}/contacts`, {
      method: 'POST',
      headers: { ...svc.auth, 'content-type': 'text/csv' },
      body: `${lines.join('\n')}\n`,
    });
    const text = await res.text();
    assert.equal(res.status, 201, text.slice(0, 300));
    const d = JSON.parse(text).data;
    assert.deepEqual([d.submitted, d.inserted, d.failed], [100_000, 100_000, 0]);
    assert.ok(svc.alive(), 'the service is still running');
    const list = await fetch(`${svc.api}/v1/accounts/${svc.accountId}/contacts?limit=1`, {
      headers: svc.auth,
    });
    assert.equal(
      ((await list.json()) as { pagination: { totalCount: number } }).pagination.totalCount,
      100_000,
    );
  });
});
