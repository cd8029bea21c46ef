/**
 * Builds dist/sparrow.js from src/main.ts with esbuild when it is missing or older than any file in
 * src/ (or this script). Plain JavaScript, so that bin/sparrow.js can run it without a loader.
 * Dependencies stay external (loaded from node_modules as usual); the write is atomic (a temp file
 * renamed over the bundle), so processes building at once never load a half-written file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundlePath = path.join(root, 'dist', 'sparrow.js');

function newestSource(dir) {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Whether dist/sparrow.js is at least as new as every source file. */
export function bundleFresh() {
  const built = fs.statSync(bundlePath, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const script = fs.statSync(fileURLToPath(import.meta.url)).mtimeMs;
  return built >= Math.max(script, newestSource(path.join(root, 'src')));
}

export async function ensureBundle() {
  if (bundleFresh()) return false;
  const esbuild = await import('esbuild');
  const tmp = `${bundlePath}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(bundlePath), { recursive: true });
  try {
    await esbuild.build({
      entryPoints: [path.join(root, 'src', 'main.ts')],
      outfile: tmp,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
      banner: { js: '// Built by scripts/bundle.js from src/ — edit src/, not this file.' },
    });
    fs.renameSync(tmp, bundlePath);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await ensureBundle();
  console.log(
    built ? `built ${path.relative(root, bundlePath)}` : `${path.relative(root, bundlePath)} is up to date`,
  );
}
