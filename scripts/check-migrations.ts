/**
 * Checks that every migration file took the next number when it landed: walking main's history
 * (first parent), a file added by a commit must be numbered above every migration that existed
 * before it, and a file not yet committed above every committed one. Files up to 0211 were numbered
 * before this rule and are exempt (0031–0035 and 0036 were back-filled). Exits 1 naming the file.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';

const DIR = 'src/db/migrations';
const EXEMPT_UP_TO = 211;
const number = (f: string) => Number(f.slice(0, 4));
const isMigration = (f: string) => /^\d{4}_.+\.sql$/.test(f);

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: PACKAGE_ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
}

/**
 * The problems in a history: `log` is `git log --first-parent --reverse --diff-filter=A
 * --name-only --format=@<commit>` of the migrations folder, `untracked` the files not committed.
 */
export function problemsInHistory(log: string, untracked: string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  let newest = 0;
  let commit = '';
  let batch: string[] = [];
  const land = () => {
    for (const f of batch)
      if (number(f) > EXEMPT_UP_TO && number(f) <= newest)
        problems.push(
          `${f} (${commit}) is numbered at or below ${String(newest).padStart(4, '0')}, which had already landed: give it the next number`,
        );
    for (const f of batch) newest = Math.max(newest, number(f));
    batch = [];
  };
  for (const line of log.split('\n')) {
    if (line.startsWith('@')) {
      land();
      commit = `commit ${line.slice(1)}`;
      continue;
    }
    const file = line.trim().split('/').pop() ?? '';
    if (!line.startsWith(DIR) || !isMigration(file) || seen.has(file)) continue;
    seen.add(file);
    batch.push(file);
  }
  land();
  commit = 'not committed';
  batch = untracked.filter((f) => isMigration(f) && !seen.has(f));
  land();
  return problems;
}

/** The problems in this checkout's history (empty when forward only), or null without history. */
export function migrationOrderProblems(): string[] | null {
  try {
    if (git(['rev-parse', '--is-shallow-repository']).trim() === 'true') return null;
    const log = git([
      'log',
      '--first-parent',
      '--diff-merges=first-parent',
      '--reverse',
      '--diff-filter=A',
      '--name-only',
      '--format=@%h',
      '--',
      DIR,
    ]);
    const untracked = git(['ls-files', '--others', '--exclude-standard', '--', DIR])
      .split('\n')
      .map((l) => l.split('/').pop() ?? '');
    return problemsInHistory(log, untracked);
  } catch {
    return null;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = migrationOrderProblems();
  if (problems === null) console.log('migration order: no git history here, not checked');
  else if (problems.length === 0) console.log('migration order: every migration took the next number');
  else {
    for (const p of problems) console.error(`migration order: ${p}`);
    process.exitCode = 1;
  }
}
