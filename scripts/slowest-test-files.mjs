/**
 * A node:test reporter (added by scripts/run-tests.ts beside TAP): at the end, the ten test files
 * whose tests took longest (the sum of their top-level tests' durations, so a file's load time is
 * not counted), to show where a run's time goes. Bundled paths are shown as their sources.
 */
import fs from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';

const BUNDLED = /^.*[/\\]\.tmp[/\\]tests-\d+[/\\](.*)\.js$/;

/** Each bundled file's source map (null: none), decoded once. */
const maps = new Map();

/**
 * The source file of a test declared at `line`:`column` of a bundled file (a shared chunk holds
 * the helpers that declare tests, as the accessibility walk's), through the bundle's source map.
 */
function sourceOf(file, line, column) {
  if (!maps.has(file)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      // No map: the test is counted as declared in shared helpers.
    }
    maps.set(file, map);
  }
  const map = maps.get(file);
  if (!map || line == null) return undefined;
  const source = map.findEntry(line - 1, (column ?? 1) - 1)?.originalSource;
  return source ? path.relative(process.cwd(), path.resolve(path.dirname(file), source)) : undefined;
}

export default async function* slowestTestFiles(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = event.data.file;
    if (!file) continue;
    const bundled = BUNDLED.exec(file);
    // A test declared in code the files share (a suite helper) is in a chunk, not a file.
    const shown = !bundled
      ? path.relative(process.cwd(), file)
      : bundled[1].includes('/') && !bundled[1].startsWith('groups/')
        ? `${bundled[1]}.ts`
        : (sourceOf(file, event.data.line, event.data.column) ?? '(tests declared in shared helpers)');
    perFile.set(shown, (perFile.get(shown) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (!slowest.length) return;
  yield '# slowest test files (seconds in their tests):\n';
  for (const [file, ms] of slowest) yield `#   ${(ms / 1000).toFixed(1).padStart(6)}  ${file}\n`;
}
