/**
 * `npm run bench:query-cost`: what one tenant's costly contact filter does to the service as
 * `npm start` runs it (child process, embedded PostgreSQL in a temporary DATA_DIR). Uploads
 * CONTACTS contacts (default 20,000) with a `plan` attribute, then creates smart lists whose one
 * attribute condition carries VALUES values (default 120,000, then 60,000 and the limit, 1,000),
 * and prints for each the answer, its time, and the slowest of the reads (`GET …/contacts`) another
 * client made meanwhile, one at a time.
 * Env: DATABASE_URL to use that server instead of an embedded one; CONTACTS; VALUES (comma-separated).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess } from '../test/service-process.ts';

const CONTACTS = Number(process.env.CONTACTS ?? 20_000);
const VALUES = (process.env.VALUES ?? '120000,60000,1000').split(',').map(Number);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-bench-query-cost-'));
fs.chmodSync(dataDir, 0o755);
const svc = await startServiceProcess(
  process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: dataDir },
);
const base = `${svc.api}/v1/accounts/${svc.accountId}`;

try {
  const lines = ['mobile,plan'];
  for (let i = 0; i < CONTACTS; i++) lines.push(`+1202${String(5_000_000 + i).padStart(7, '0')},p${i % 500}`);
  const up = await fetch(`${base}/contacts`, {
    method: 'POST',
    headers: { ...svc.auth, 'content-type': 'text/csv' },
    body: `${lines.join('\n')}\n`,
  });
  console.log(`upload of ${CONTACTS} contacts: ${up.status}`);

  const read = async () => {
    const t = performance.now();
    const res = await fetch(`${base}/contacts?limit=20`, { headers: svc.auth });
    await res.arrayBuffer();
    return { ms: performance.now() - t, status: res.status };
  };
  const idle = [];
  for (let i = 0; i < 5; i++) idle.push((await read()).ms);
  console.log(`GET …/contacts alone: ${Math.max(...idle).toFixed(0)} ms at most of 5`);

  for (const n of VALUES) {
    // Short distinct values (base 36), as the attack sent them: 120,000 fit under 1 MiB.
    const value = Array.from({ length: n }, (_, i) => i.toString(36));
    const json = JSON.stringify({
      name: `costly ${n}`,
      filter: { attributes: [{ attribute: 'plan', comparator: '=', value }] },
    });
    let done = false;
    let slowest = 0;
    const statuses = new Set<number>();
    const reads = (async () => {
      while (!done) {
        const r = await read();
        slowest = Math.max(slowest, r.ms);
        statuses.add(r.status);
      }
    })();
    const t = performance.now();
    const res = await fetch(`${base}/lists`, {
      method: 'POST',
      headers: { ...svc.auth, 'content-type': 'application/json' },
      body: json,
    });
    const text = await res.text();
    const ms = performance.now() - t;
    done = true;
    await reads;
    console.log(
      `${n} values (${(json.length / 1024).toFixed(0)} KiB): ${res.status} in ${ms.toFixed(0)} ms ` +
        `${text.slice(0, 160)}; other reads meanwhile: slowest ${slowest.toFixed(0)} ms, statuses ${[...statuses].join(',')}`,
    );
  }
} finally {
  await svc.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
