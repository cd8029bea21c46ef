/**
 * Writes src/db/schema.sql: the schema the migrations build on a fresh embedded PostgreSQL (the
 * default server, so the file is the same on every machine). `--check` compares instead of writing
 * and exits 1 with the first differing line when the file is stale.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { dumpSchema, SCHEMA_FILE } from '../src/db/schema-dump.ts';

async function main() {
  const check = process.argv.includes('--check');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-schema-'));
  fs.chmodSync(tmp, 0o755);
  const server = await startEmbedded(tmp, 'postgres');
  try {
    const url = server.url('postgres');
    await migrate(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const text = await dumpSchema(client);
    await client.end();
    if (!check) {
      fs.writeFileSync(SCHEMA_FILE, text);
      console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)} (${text.split('\n').length} lines)`);
      return;
    }
    const current = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, 'utf8') : '';
    if (current === text) {
      console.log('src/db/schema.sql matches the migrations');
      return;
    }
    const a = current.split('\n');
    const b = text.split('\n');
    const i = a.findIndex((line, n) => line !== b[n]);
    const at = i === -1 ? Math.min(a.length, b.length) : i;
    console.error(
      `src/db/schema.sql is stale (line ${at + 1}: file has ${JSON.stringify(a[at] ?? '')}, migrations give ${JSON.stringify(b[at] ?? '')}); run \`npm run schema:dump\``,
    );
    process.exitCode = 1;
  } finally {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
