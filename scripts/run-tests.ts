/**
 * The test command: prepares one PostgreSQL (embedded, or the server in DATABASE_URL) with a
 * migrated template database, then runs node's test runner over test/**\/*.test.ts. Each test file
 * clones the template into a database of its own, so files run in parallel without sharing rows.
 *
 * The test files run pre-bundled: one esbuild build of all of them (the service code they import in
 * shared chunks, dependencies external) into .tmp/, as the service itself runs from dist/. Loading
 * the service through tsx cost each file about 1 s more CPU than loading it bundled (155 of the files
 * load it), and the bundled files run without tsx. Each module's import.meta.url (and dirname,
 * filename) is its source file's, so paths resolve as from the sources; source maps name the .ts
 * lines. SPARROW_TEST_TSX=1 runs the sources through tsx instead.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { startEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { ensureBundle, externalPackages } from './bundle.js';

function findTests(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? findTests(path.join(dir, e.name))
        : e.name.endsWith('.test.ts')
          ? [path.join(dir, e.name)]
          : [],
    )
    .sort();
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The folders whose files run longest (worker processes killed and restarted, SMPP peers, browser
 * walks, the CLI's own services) go first: run last, one of them kept a slot busy after the other
 * had nothing left (files run two at a time). Otherwise the order given.
 */
const SLOW_FIRST = ['test/workers/', 'test/smpp/', 'test/scale/', 'test/console/', 'test/cli/'];
function runOrder(files: string[]): string[] {
  const rank = (f: string) => {
    const i = SLOW_FIRST.findIndex((dir) => f.replaceAll('\\', '/').includes(dir));
    return i === -1 ? SLOW_FIRST.length : i;
  };
  return files
    .map((f, i) => ({ f, i, r: rank(f) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.f);
}

/**
 * Bundles the test files into `outdir` (one build, code shared between them in chunks); answers
 * the bundled files in the order given. Each project module keeps its source's import.meta.
 */
async function bundleTests(files: string[], outdir: string): Promise<string[]> {
  const esbuild = await import('esbuild');
  const entries = files.map((f) => path.resolve(f));
  await esbuild.build({
    entryPoints: entries,
    outdir,
    outbase: ROOT,
    entryNames: '[dir]/[name]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    keepNames: true,
    sourcemap: 'linked',
    logLevel: 'silent',
    plugins: [
      // Dependencies load from node_modules, as the service's own bundle has them (scripts/bundle.js).
      externalPackages,
      {
        name: 'source-import-meta',
        setup(build) {
          build.onLoad({ filter: /\.(ts|js|mjs)$/ }, async (args) => {
            if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
            let text = await fs.promises.readFile(args.path, 'utf8');
            if (text.includes('import.meta.'))
              text = text
                .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href))
                .replace(/\bimport\.meta\.dirname\b/g, JSON.stringify(path.dirname(args.path)))
                .replace(/\bimport\.meta\.filename\b/g, JSON.stringify(args.path));
            return { contents: text, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
          });
        },
      },
    ],
  });
  return entries.map((f) => path.join(outdir, path.relative(ROOT, f)).replace(/\.ts$/, '.js'));
}

/**
 * Files of these folders run several to a process (each file's tests in order, then the next
 * file's), the bundle and the service loaded once for them: loading them cost each file about
 * 0.6 s of CPU (module compilation), more than many of these files' tests take (the console,
 * workers and cli files grouped: 320 s of CPU against 370 s, docs/testing.md). A file that
 * changes what its process shares (the clock, the environment, process handlers, hooks outside
 * a suite) runs alone.
 */
const GROUPED = [
  'test/http/',
  'test/messaging/',
  'test/domain/',
  'test/docs/',
  'test/contract/',
  'test/db/',
  'test/providers/',
  'test/smpp/',
  'test/workers/',
  'test/console/',
  'test/cli/',
];
const GROUP_SIZE = Number(process.env.SPARROW_TEST_GROUP) || 4;
const SHARES_PROCESS =
  /mock\.timers|process\.env\.\w+\s*=[^=]|delete process\.env|process\.(on|once|chdir|exit)\(|setGlobalDispatcher|^(before|after|beforeEach|afterEach)\(/m;

/**
 * The bundled files grouped as they will run: in the files' order, consecutive files of a
 * GROUPED folder go GROUP_SIZE to an entry file (written in `outdir`) that imports them.
 */
function groupFiles(sources: string[], bundled: string[], outdir: string): string[] {
  const out: string[] = [];
  let group: string[] = [];
  const flush = () => {
    if (group.length === 1) out.push(group[0]);
    else if (group.length > 1) {
      const entry = path.join(outdir, 'groups', `group-${out.length}.test.js`);
      fs.mkdirSync(path.dirname(entry), { recursive: true });
      fs.writeFileSync(
        entry,
        group.map((f) => `import ${JSON.stringify(pathToFileURL(f).href)};\n`).join(''),
      );
      out.push(entry);
    }
    group = [];
  };
  sources.forEach((src, i) => {
    const rel = path.relative(ROOT, src).replaceAll('\\', '/');
    const groupable =
      GROUP_SIZE > 1 &&
      GROUPED.some((dir) => rel.startsWith(dir)) &&
      !SHARES_PROCESS.test(fs.readFileSync(src, 'utf8'));
    if (!groupable) {
      flush();
      out.push(bundled[i]);
      return;
    }
    group.push(bundled[i]);
    if (group.length >= GROUP_SIZE) flush();
  });
  flush();
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Where the run's scratch files go: a memory file system (/dev/shm) when there is one with room,
 * else the system's temporary directory. The run's PostgreSQL cluster and every temporary
 * directory the tests make (TMPDIR: the CLI tests' data directories and their clusters, browser
 * profiles, uploads) are thrown away after the run. On disk (ext4), creating a database's ~2,000
 * files from the template took 18 % of PostgreSQL's CPU in a run of test/http (openat, inode
 * allocation after the last file's databases were dropped).
 */
const SCRATCH_MIN_FREE = 4 * 1024 ** 3;
function scratchRoot(): string {
  try {
    const st = fs.statfsSync('/dev/shm');
    if (st.type === 0x01021994 && st.bavail * st.bsize >= SCRATCH_MIN_FREE) {
      fs.accessSync('/dev/shm', fs.constants.W_OK);
      return '/dev/shm';
    }
  } catch {
    // No /dev/shm (not Linux) or not writable: the system's temporary directory.
  }
  return os.tmpdir();
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function main() {
  const files = runOrder(process.argv.slice(2).length ? process.argv.slice(2) : findTests('test'));
  // The CLI tests run bin/sparrow.js, which runs the bundle: build it once here, not in each of them.
  await ensureBundle().catch(() => {});
  const template = `sparrow_tpl_${process.pid}`;
  let adminUrl: string;
  let stop = async () => {};
  let tmp: string | undefined;
  const root = scratchRoot();
  // Those of runs that were killed are removed (in memory, they would hold it until a reboot).
  for (const name of fs.readdirSync(root)) {
    const pid = Number(/^sparrow-run-(\d+)$/.exec(name)?.[1]);
    if (pid && !alive(pid)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
  const scratch = path.join(root, `sparrow-run-${process.pid}`);
  fs.rmSync(scratch, { recursive: true, force: true });
  // As root, PostgreSQL runs as a separate user that must be able to enter the directories, and
  // the tests' own clusters (as that user) write in TMPDIR as /tmp allows.
  fs.mkdirSync(path.join(scratch, 'tmp'), { recursive: true });
  fs.chmodSync(scratch, 0o755);
  fs.chmodSync(path.join(scratch, 'tmp'), 0o1777);
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
    console.log(`# tests against DATABASE_URL${process.env.REDIS_URL ? ' and REDIS_URL' : ''}`);
  } else {
    tmp = fs.mkdtempSync(path.join(scratch, 'pg-'));
    fs.chmodSync(tmp, 0o755);
    const server = await startEmbedded(tmp, 'postgres');
    adminUrl = server.url('postgres');
    stop = server.stop;
    console.log('# tests against embedded PostgreSQL');
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  if (tmp) {
    // A cluster thrown away after the run: nothing to flush to disk. Each file's clone of the
    // template and each commit then waits for no fsync (a commit took 8-18 ms with it, 0.2-1.5 ms
    // without, at a load average of 25); the tests that stop PostgreSQL start their own.
    // synchronous_commit stays on: test/db/pooler.test.ts checks that no session turned it off.
    for (const setting of ['fsync', 'full_page_writes'])
      await admin.query(`ALTER SYSTEM SET ${setting} = off`);
    // In memory, the WAL between checkpoints is memory too (1 GB by default).
    await admin.query(`ALTER SYSTEM SET max_wal_size = '256MB'`);
    await admin.query('SELECT pg_reload_conf()');
  }
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await migrate(withDatabase(adminUrl, template));

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SPARROW_TEST_ADMIN_URL: adminUrl,
    SPARROW_TEST_TEMPLATE: template,
    SPARROW_TEST_PREFIX: `sparrow_t_${process.pid}_`,
    TMPDIR: path.join(scratch, 'tmp'),
    // The server DATABASE_URL named (not the embedded one): the scale-out tests run only against it.
    ...(process.env.DATABASE_URL ? { SPARROW_TEST_SERVER_URL: process.env.DATABASE_URL } : {}),
  };
  delete env.DATABASE_URL;
  // A file that has not finished in 7 minutes is stuck. The slowest honest ones (the console's
  // accessibility walks, the CLI tests' process starts) take 1–2 minutes when the machine is busy
  // (a load average of 10); 180 s was not enough at a load average of 30.
  // Per run (other test commands may be running in the same tree at once); those of runs that
  // were killed are removed.
  const outdir = path.join(ROOT, '.tmp', `tests-${process.pid}`);
  fs.mkdirSync(path.dirname(outdir), { recursive: true });
  for (const name of fs.readdirSync(path.dirname(outdir), { withFileTypes: true }).map((e) => e.name)) {
    const pid = Number(/^tests-(\d+)$/.exec(name)?.[1]);
    if (pid && !alive(pid))
      fs.rmSync(path.join(path.dirname(outdir), name), { recursive: true, force: true });
  }
  let runFiles = files;
  if (process.env.SPARROW_TEST_TSX !== '1') {
    const started = Date.now();
    try {
      runFiles = groupFiles(files, await bundleTests(files, outdir), outdir);
      console.log(
        `# ${files.length} test files bundled in ${Date.now() - started} ms, run in ${runFiles.length} processes`,
      );
    } catch (err) {
      // tsx reports a file that cannot be compiled as that file's failure.
      console.log(`# bundling failed, running the sources through tsx: ${(err as Error).message}`);
    }
  }
  // Test processes run this many at a time: 4 by default. Most of a file's time is waiting (for
  // its service, its worker processes, a browser, a timer), not CPU: test/http, grouped, took
  // 220 s at 3 and 159 s at 5 on the same machine (docs/testing.md).
  const concurrency = Number(process.env.SPARROW_TEST_CONCURRENCY) || 4;
  // Bundled, the files need no loader (tsx's hooks cost a bundled file 0.6 s more CPU: importing
  // test/helpers.ts bundled took 0.33-0.38 s user without them, 0.93-1.01 s with), and stacks name
  // the .ts lines through the bundle's source maps, read only when a stack is formatted
  // (scripts/test-source-maps.mjs: --enable-source-maps decoded them all at load, 0.35 s a file).
  // The processes the tests start run bin/sparrow.js.
  const loader = [
    ...(runFiles === files
      ? ['--import', 'tsx']
      : ['--import', pathToFileURL(path.join(ROOT, 'scripts', 'test-source-maps.mjs')).href]),
    // Each file's process ends with its tests (scripts/test-file-exit.mjs).
    '--import',
    pathToFileURL(path.join(ROOT, 'scripts', 'test-file-exit.mjs')).href,
  ];
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        ...loader,
        '--test',
        `--test-concurrency=${concurrency}`,
        '--test-timeout=420000',
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        `--test-reporter=${path.join(ROOT, 'scripts', 'slowest-test-files.mjs')}`,
        '--test-reporter-destination=stdout',
        ...runFiles,
      ],
      { stdio: 'inherit', env },
    );
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });
  fs.rmSync(outdir, { recursive: true, force: true });

  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
    [`sparrow_t_${process.pid}_%`, template],
  );
  for (const r of rows)
    await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`).catch(() => {});
  await admin.end();
  await stop();
  fs.rmSync(scratch, { recursive: true, force: true });
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
