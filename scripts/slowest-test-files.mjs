/**
 * A node:test reporter (added by scripts/run-tests.ts beside TAP): at the end, the ten test files
 * whose tests took longest (the sum of their top-level tests' durations, so a file's load time is
 * not counted), to show where a run's time goes. Bundled paths are shown as their sources.
 */
import path from 'node:path';
import { sourcePosition } from './test-source-maps.mjs';

const BUNDLED = /^.*[/\\]\.tmp[/\\]tests-\d+[/\\](.*)\.js$/;

/**
 * The source file of a test declared at `line`:`column` of a bundled file (a shared chunk holds
 * the helpers that declare tests, as the accessibility walk's), through the bundle's source map.
 */
function sourceOf(file, line, column) {
  if (line == null) return undefined;
  const source = sourcePosition(file, line, column ?? 1);
  return source ? path.relative(process.cwd(), source.file) : undefined;
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
