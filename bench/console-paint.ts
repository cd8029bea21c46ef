/**
 * `npm run bench:console`: how long a full reload of the console takes to paint, in Chromium,
 * with 500 contacts, with the console as one bundled script (what the service serves) and with the
 * modules one by one (the shell as written, console/index.html: what it served before the bundle).
 *
 * The API listener runs in this process on a fresh database (embedded, or DATABASE_URL) with one
 * account, its administrator and 500 contacts. Debian's Chromium (/usr/bin/chromium, headless,
 * fresh profile) signs in once, then reloads `#/contacts` RELOADS times per variant (after one
 * reload to warm the cache), alternating the variants. For each reload, from the navigation's start:
 * `first paint` (the page's first-contentful-paint: the shell drawn by the script, as the page has
 * no content without it), `contacts shown` (the contacts table with its 20 rows), and the number
 * of script requests. Prints the median and the 90th percentile. The modules variant is the same
 * server: the browser is handed console/index.html as written for the shell, which loads
 * /console/js/app.js and its imports (still served, with ETags and `no-cache`).
 * Env: RELOADS (default 15), CONTACTS (default 500), DATABASE_URL.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool } from '../src/db/client.ts';
import { createAccount } from '../src/domain/accounts/create-account.ts';
import { createClient } from '../src/domain/auth/create-client.ts';
import { ensureUser } from '../src/domain/users/members.ts';
import { buildApiApp } from '../src/http/app.ts';
import { CONSOLE_ROOT } from '../src/http/routes/console.ts';
import { benchDatabase, fmt } from './support.ts';

const RELOADS = Number(process.env.RELOADS ?? 15);
const CONTACTS = Number(process.env.CONTACTS ?? 500);
const CHROMIUM = '/usr/bin/chromium';

const database = await benchDatabase();
const db = createPool(database.url, 10);
const ctx = createContext({ ...loadConfig({}), databaseUrl: database.url }, db);
const api = await buildApiApp(ctx);
await api.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;

const { account } = await createAccount(db, { name: 'bench' });
const admin = { email: 'admin@bench.example', password: 'the administrator’s password' };
await ensureUser(db, account.id, { ...admin, role: 'Administrator' }, { id: 'bench' });
const { client } = await createClient(db, account.id, { name: 'bench' });
const token = await ctx.tokens.issue(
  { id: client.id, name: client.name, accountId: account.id },
  client.scopes,
);
const csv = ['firstName,lastName,mobile'];
for (let i = 0; i < CONTACTS; i++) csv.push(`Person${i},Bench,+1202555${String(i).padStart(4, '0')}`);
const upload = await api.inject({
  method: 'POST',
  url: `/v1/accounts/${account.id}/contacts`,
  headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
  payload: csv.join('\n'),
});
if (upload.statusCode !== 201) throw new Error(`contacts upload: ${upload.statusCode} ${upload.body}`);

const profile = mkdtempSync(path.join(os.tmpdir(), 'sparrow-paint-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const page = browser.pages()[0] ?? (await browser.newPage());
page.setDefaultTimeout(30_000);

// The shell as written (modules one by one), handed to the browser when `modules` is on.
const asWritten = readFileSync(path.join(CONSOLE_ROOT, 'index.html'), 'utf8');
let modules = false;
let scripts = 0;
page.on('request', (req) => {
  if (req.resourceType() === 'script') scripts++;
});
await page.route(`${base}/console/`, async (route) => {
  if (!modules) return route.continue();
  const res = await route.fetch();
  await route.fulfill({ response: res, body: asWritten });
});

await page.goto(`${base}/console/`);
await page.fill('input[name=email]', admin.email);
await page.fill('input[name=password]', admin.password);
await page.click('button[type=submit]');
await page.locator('nav').first().waitFor();
await page.goto(`${base}/console/#/contacts`);
await page.locator('table tbody tr').nth(19).waitFor();

interface Sample {
  paint: number;
  shown: number;
  scripts: number;
}

async function reload(p: Page): Promise<Sample> {
  scripts = 0;
  await p.reload({ waitUntil: 'commit' });
  await p.locator('table tbody tr').nth(19).waitFor();
  const [paint, shown] = await p.evaluate(() => [
    performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    performance.now(),
  ]);
  return { paint, shown, scripts };
}

const samples: Record<'bundle' | 'modules', Sample[]> = { bundle: [], modules: [] };
for (const variant of ['bundle', 'modules'] as const) {
  modules = variant === 'modules';
  await reload(page); // warm the cache for this variant
}
for (let i = 0; i < RELOADS; i++) {
  for (const variant of ['modules', 'bundle'] as const) {
    modules = variant === 'modules';
    samples[variant].push(await reload(page));
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
console.log(
  `console paint: full reloads of #/contacts with ${CONTACTS} contacts, ${RELOADS} per variant, Chromium ${browser.browser()?.version() ?? ''}`,
);
for (const variant of ['modules', 'bundle'] as const) {
  const xs = samples[variant];
  console.log(
    `${variant.padEnd(8)} first paint median ${fmt(
      pct(
        xs.map((s) => s.paint),
        50,
      ),
    )} ms, p90 ${fmt(
      pct(
        xs.map((s) => s.paint),
        90,
      ),
    )} ms;` +
      ` contacts shown median ${fmt(
        pct(
          xs.map((s) => s.shown),
          50,
        ),
      )} ms, p90 ${fmt(
        pct(
          xs.map((s) => s.shown),
          90,
        ),
      )} ms;` +
      ` ${xs[0].scripts} script request(s)`,
  );
}

await browser.close();
rmSync(profile, { recursive: true, force: true });
await api.close();
await ctx.close();
await db.end();
await database.stop();
