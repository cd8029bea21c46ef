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

function mapOf(file) {
  if (!maps.has(file)) {
    let map = null;
    try {
      map = {
        dir: path.dirname(file),
        map: new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8'))),
      };
    } catch {
      // No map beside it (or it is gone): the bundled position is shown.
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** `fn (file:line:col)` of one frame, in the source file when the frame is in a bundled file. */
function frameText(frame) {
  const text = String(frame);
  let name = frame.getFileName();
  if (!name || !BUNDLED.test(name)) return text;
  const file = name.startsWith('file:') ? fileURLToPath(name) : name;
  const found = mapOf(file);
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (!found || line == null || column == null) return text;
  const entry = found.map.findEntry(line - 1, column - 1);
  if (!entry?.originalSource) return text;
  name = path.resolve(found.dir, entry.originalSource.replace(/^file:\/\//, ''));
  const at = `${name}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  // The frame's own text with its bundled position replaced by the source's.
  const bundled = `${frame.getFileName()}:${line}:${column}`;
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
