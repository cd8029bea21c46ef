/**
 * `npm run bench:upload`: memory of CSV uploads in the service as `npm start` runs it (child process,
 * `--max-old-space-size=256`, embedded PostgreSQL in a temporary DATA_DIR, free ports). Uploads
 * (1) 100,000 rows of `country,firstName,lastName,mobile` (~2.5 MB), (2) a CSV of just under 16 MiB
 * of the same shape, (3) 2,000 columns × 1,500 rows (~6 MB, must be refused), and prints for each
 * the answer, the time, and the service's resident set size: before, peak during (VmRSS sampled
 * every 10 ms) and VmHWM (peak since start). The PostgreSQL processes are not counted.
 * Env: DATABASE_URL to use that server instead of an embedded one. BENCH_UPLOAD=imports posts to
 * `…/contacts/imports` instead and follows each import to its end (the service's own worker writes it),
 * sampling the RSS the whole time: staging (the 202) and the import.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess } from '../test/service-process.ts';

const LIMIT = 16 * 1024 * 1024;
const IMPORTS = process.env.BENCH_UPLOAD === 'imports';

function fourColumns(rows: number, area: string, first: number, maxBytes = Number.POSITIVE_INFINITY): Buffer {
  const lines = ['country,firstName,lastName,mobile'];
  let size = lines[0].length + 1;
  for (let i = 0; i < rows; i++) {
    const line = `US,First${i},Last${i},${area}${String(first + i).padStart(7, '0')}`;
    if (size + line.length + 1 > maxBytes) break;
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function wide(columns: number, rows: number): Buffer {
  const header = ['mobile', ...Array.from({ length: columns - 1 }, (_, i) => `c${i}`)].join(',');
  const lines = [header];
  for (let r = 0; r < rows; r++)
    lines.push([`203${String(2_000_000 + r).padStart(7, '0')}`, ...Array(columns - 1).fill('x')].join(','));
  return Buffer.from(`${lines.join('\n')}\n`);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-bench-upload-'));
fs.chmodSync(dataDir, 0o755);
const svc = await startServiceProcess(
  process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: dataDir },
);
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

async function upload(name: string, csv: Buffer) {
  const before = svc.memory().rssKb;
  let peak = before;
  const sampler = setInterval(() => {
    if (svc.alive()) peak = Math.max(peak, svc.memory().rssKb);
  }, 10);
  const t = performance.now();
  const res = await fetch(`${svc.api}/v1/accounts/${svc.accountId}/contacts${IMPORTS ? '/imports' : ''}`, {
    method: 'POST',
    headers: { ...svc.auth, 'content-type': 'text/csv' },
    body: new Uint8Array(csv),
  }).catch((err: Error) => ({ status: 0, text: async () => err.message }));
  let seconds = ((performance.now() - t) / 1000).toFixed(1);
  let text = await res.text();
  if (IMPORTS && res.status === 202) {
    const id = JSON.parse(text).data.id;
    for (;;) {
      await new Promise((r) => setTimeout(r, 500));
      text = await (
        await fetch(`${svc.api}/v1/accounts/${svc.accountId}/contacts/imports/${id}`, { headers: svc.auth })
      ).text();
      const status = JSON.parse(text).data.status;
      if (status === 'completed' || status === 'failed') break;
    }
    seconds = `${seconds} (202), ${((performance.now() - t) / 1000).toFixed(1)} (imported)`;
  }
  clearInterval(sampler);
  let summary = text.slice(0, 160);
  try {
    const b = JSON.parse(text);
    summary = b.success
      ? b.data.counts
        ? `${b.data.status}, created ${b.data.counts.created}, failed ${b.data.counts.failed}`
        : `inserted ${b.data.inserted}, failed ${b.data.failed}`
      : `${b.error.code}: ${b.error.message.slice(0, 120)}`;
  } catch {}
  const hwm = svc.alive() ? mb(svc.memory().peakKb) : 'process gone';
  console.log(
    `${name} (${(csv.length / 1024 / 1024).toFixed(1)} MiB): ${res.status} in ${seconds} s — ${summary}; ` +
      `RSS before ${mb(before)}, peak during ${mb(peak)}, VmHWM ${hwm}`,
  );
}

try {
  console.log(`service pid ${svc.child.pid}, RSS at rest ${mb(svc.memory().rssKb)}`);
  await upload('100,000 rows × 4 columns', fourColumns(100_000, '202', 3_100_000));
  await upload('16 MiB × 4 columns', fourColumns(1_000_000, '201', 2_000_000, LIMIT));
  await upload('2,000 columns × 1,500 rows', wide(2000, 1500));
  const health = await fetch(`${svc.api}/healthz`).then(
    (r) => r.status,
    () => 0,
  );
  console.log(`service alive: ${svc.alive()}, /healthz ${health}`);
} finally {
  await svc.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
