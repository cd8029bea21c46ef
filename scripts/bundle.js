/**
 * Builds dist/sparrow.js from src/main.ts with esbuild when it is missing or older than any file in
 * src/ (or this script). Plain JavaScript, so that bin/sparrow.js can run it without a loader.
 * Dependencies stay external (loaded from node_modules as usual) but BUNDLED_PACKAGES.
 *
 * The build is split: main.js and the chunks its dynamic imports need, in a directory of their own
 * (dist/build-<id>/), so a command loads only its own code and packages. One bundle loaded every
 * package of the service (fastify, the Swagger UI, nodemailer, …) for `sparrow --help` too: a CLI
 * command took 0.8–1.0 s of CPU, 0.2–0.3 s split. dist/sparrow.js is one line importing the
 * newest build's main.js, written last and atomically (a temp file renamed over it), so processes
 * building at once never load a half-written build; a process still running an older build can go
 * on loading its chunks (a build is removed a day after a newer one replaced it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
export const bundlePath = path.join(dist, 'sparrow.js');
/** How long a replaced build is kept for the processes still running it. */
const KEEP_REPLACED_MS = 24 * 3600 * 1000;

/**
 * Packages built into the bundles (this one and the test command's) instead of loaded from
 * node_modules: pure JavaScript spread over hundreds of small modules, whose loading cost more
 * CPU than their code. Measured as the one import of a new process: TypeBox 100–140 ms from
 * node_modules, 13 ms bundled; libphonenumber-js/max 67–93 ms, 22 ms. Neither keeps state that
 * another package shares (TypeBox's builders make plain JSON schemas, checked by fastify's Ajv).
 */
export const BUNDLED_PACKAGES = ['@sinclair/typebox', 'libphonenumber-js'];

/** An esbuild plugin: every package is external (loaded from node_modules) but BUNDLED_PACKAGES. */
export const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (path.isAbsolute(args.path)) return undefined;
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return BUNDLED_PACKAGES.includes(name) ? undefined : { path: args.path, external: true };
    });
  },
};

function newestSource(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** The build dist/sparrow.js imports (`build-…`), if it names one. */
function currentBuild() {
  const text = fs.existsSync(bundlePath) ? fs.readFileSync(bundlePath, 'utf8') : '';
  return /^import '\.\/(build-[\w-]+)\/main\.js';$/m.exec(text)?.[1];
}

/** Whether dist/sparrow.js is at least as new as every source file, and its build is there. */
export function bundleFresh() {
  const built = fs.statSync(bundlePath, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const build = currentBuild();
  if (!build || !fs.existsSync(path.join(dist, build, 'main.js'))) return false;
  const script = fs.statSync(fileURLToPath(import.meta.url)).mtimeMs;
  return built >= Math.max(script, newestSource(path.join(root, 'src')));
}

/** Removes the builds replaced more than KEEP_REPLACED_MS ago (and half-written ones as old). */
function pruneBuilds(current) {
  const now = Date.now();
  for (const e of fs.readdirSync(dist, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name === current || !/^\.?build-/.test(e.name)) continue;
    const dir = path.join(dist, e.name);
    const mtime = fs.statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? now;
    if (now - mtime > KEEP_REPLACED_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function ensureBundle() {
  if (bundleFresh()) return false;
  const esbuild = await import('esbuild');
  fs.mkdirSync(dist, { recursive: true });
  const id = `build-${Date.now().toString(36)}-${process.pid}`;
  const tmpDir = path.join(dist, `.${id}`);
  const tmpEntry = `${bundlePath}.${process.pid}.tmp`;
  try {
    await esbuild.build({
      entryPoints: { main: path.join(root, 'src', 'main.ts') },
      outdir: tmpDir,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      plugins: [externalPackages],
      logLevel: 'silent',
      banner: { js: '// Built by scripts/bundle.js from src/ — edit src/, not this file.' },
    });
    fs.renameSync(tmpDir, path.join(dist, id));
    // The build this one replaces is kept a day from now (pruneBuilds goes by the directory's time).
    const replaced = currentBuild();
    try {
      if (replaced) fs.utimesSync(path.join(dist, replaced), new Date(), new Date());
    } catch {
      // Gone already: nothing to keep.
    }
    fs.writeFileSync(
      tmpEntry,
      `// Built by scripts/bundle.js from src/ — edit src/, not this file.\nimport './${id}/main.js';\n`,
    );
    fs.renameSync(tmpEntry, bundlePath);
  } catch (err) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    fs.rmSync(tmpEntry, { force: true });
    throw err;
  }
  pruneBuilds(id);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await ensureBundle();
  console.log(
    built ? `built ${path.relative(root, bundlePath)}` : `${path.relative(root, bundlePath)} is up to date`,
  );
}
