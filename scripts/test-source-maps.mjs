/**
 * Loaded into every bundled test file's process (scripts/run-tests.ts) in place of node's
 * --enable-source-maps: stack traces name the .ts lines, but a bundle's source map is read only
 * when a stack through it is formatted. --enable-source-maps decoded every loaded chunk's map as
 * it loaded, about 0.35 s of CPU in each of the ~140 test processes (measured with a file that
 * starts one test service: 1.1–1.4 s of CPU before its first test with it, 0.8–1.1 s without),
 * while most processes never format a stack through them.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The bundled files: scripts/run-tests.ts writes them under .tmp/tests-<pid>/. */
const BUNDLED = /[/\\]\.tmp[/\\]tests-\d+[/\\]/;
/** Each bundled file's map (null: none could be read), decoded once. */
const maps = new Map();

/**
 * Where 1-based `line`:`column` of a bundled file (a path) comes from: its source file (absolute)
 * and 1-based position, through the map beside it; undefined without one. Also used by the
 * slowest-files reporter (scripts/slowest-test-files.mjs) to name a test's declaring file.
 */
export function sourcePosition(file, line, column) {
  if (!maps.has(file)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      // No map beside it (or it is gone): the bundled position stands.
    }
    maps.set(file, map);
  }
  const entry = maps.get(file)?.findEntry(line - 1, column - 1);
  if (!entry?.originalSource) return undefined;
  return {
    file: path.resolve(path.dirname(file), entry.originalSource.replace(/^file:\/\//, '')),
    line: entry.originalLine + 1,
    column: entry.originalColumn + 1,
  };
}

/** `fn (file:line:col)` of one frame, in the source file when the frame is in a bundled file. */
function frameText(frame) {
  const text = String(frame);
  const name = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (!name || !BUNDLED.test(name) || line == null || column == null) return text;
  const source = sourcePosition(name.startsWith('file:') ? fileURLToPath(name) : name, line, column);
  if (!source) return text;
  const at = `${source.file}:${source.line}:${source.column}`;
  // The frame's own text with its bundled position replaced by the source's.
  const bundled = `${name}:${line}:${column}`;
  return text.includes(bundled) ? text.replace(bundled, at) : `${text} [${at}]`;
}

// Node's own default formatting is what this replaces (Node 20 exposes it as Error.prepareStackTrace).
Error.prepareStackTrace = (error, frames) => {
  let head;
  try {
    head = Error.prototype.toString.call(error);
  } catch {
    head = '<error>';
  }
  return [head, ...frames.map((f) => `    at ${frameText(f)}`)].join('\n');
};
