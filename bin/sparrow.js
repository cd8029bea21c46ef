#!/usr/bin/env node
// Runs the CLI from dist/sparrow.js, an esbuild build of src/ that is rebuilt here whenever a
// source file is newer than it (about 0.3 s, once; scripts/bundle.js): a start then loads plain
// JavaScript, only the chunks its command needs, instead of transforming some 400 TypeScript
// modules through tsx's loader (about 1 s at every start). Without esbuild, or if the bundle cannot
// be built, it runs src/ through tsx as before.
import { pathToFileURL } from 'node:url';
import { bundlePath, ensureBundle } from '../scripts/bundle.js';

let entry;
try {
  await ensureBundle();
  entry = pathToFileURL(bundlePath).href;
} catch (err) {
  if (process.env.SPARROW_DEBUG) console.error(`sparrow: running from src/ (no bundle: ${err.message})`);
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('../src/main.ts', import.meta.url).href;
}
await import(entry);
