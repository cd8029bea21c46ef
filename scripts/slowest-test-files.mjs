/**
 * A node:test reporter (added by scripts/run-tests.ts beside TAP): at the end, the ten test files
 * whose tests took longest (the sum of their top-level tests' durations, so a file's load time is
 * not counted), to show where a run's time goes. Bundled paths are shown as their sources.
 */
import path from 'node:path';

const BUNDLED = /^.*[/\\]\.tmp[/\\]tests-\d+[/\\](.*)\.js$/;

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
      : bundled[1].includes('/')
        ? `${bundled[1]}.ts`
        : '(tests declared in shared helpers)';
    perFile.set(shown, (perFile.get(shown) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (!slowest.length) return;
  yield '# slowest test files (seconds in their tests):\n';
  for (const [file, ms] of slowest) yield `#   ${(ms / 1000).toFixed(1).padStart(6)}  ${file}\n`;
}
