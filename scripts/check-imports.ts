/**
 * The import rules of src/ (run by `npm run lint`):
 *
 * - Layers point one way: `http` → `domain` → `db`, `providers`, `storage` → `schemas`,
 *   `messaging`, `util`. A lower layer never imports a higher one (LAYER_RULES); there are no
 *   exceptions. `schemas/` is the API contract (request and response schemas, and the enumerations
 *   and limits the API publishes): routes and presenters import it, and it imports only pure rules.
 *   `domain/send/` is the send path (accept, dispatch, receipts), a domain area like the others.
 * - No cycles among the imports that run (`import type` is erased and does not count).
 *
 * Regex on the import lines is enough: the code base uses static `import … from '…'` and
 * `export … from '…'` with relative paths, and `await import('…')` for the few lazy loads.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');

interface Edge {
  to: string;
  typeOnly: boolean;
}

const ABOVE_DOMAIN = ['http/', 'workers/', 'smpp/', 'server.ts', 'main.ts'];

/** Folder (relative to src, `/`-separated) → folders it must not import from. */
const LAYER_RULES: Array<{ from: string; forbidden: string[] }> = [
  { from: 'domain/', forbidden: ['http/', 'workers/', 'server.ts', 'main.ts'] },
  { from: 'db/', forbidden: [...ABOVE_DOMAIN, 'domain/', 'providers/'] },
  { from: 'providers/', forbidden: [...ABOVE_DOMAIN, 'domain/'] },
  { from: 'storage/', forbidden: [...ABOVE_DOMAIN, 'domain/', 'db/'] },
  {
    from: 'schemas/',
    forbidden: [...ABOVE_DOMAIN, 'domain/', 'db/', 'storage/', 'crypto/', 'net/', 'config'],
  },
  {
    from: 'messaging/',
    forbidden: [...ABOVE_DOMAIN, 'domain/', 'db/', 'schemas/', 'storage/'],
  },
  { from: 'util/', forbidden: [...ABOVE_DOMAIN, 'domain/', 'db/', 'providers/', 'messaging/', 'schemas/'] },
  { from: 'workers/', forbidden: ['http/', 'db/'] },
  { from: 'smpp/', forbidden: ['http/', 'workers/'] },
];

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const STATIC = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'([^']+)';/gms;
const BARE = /^\s*import\s+'([^']+)';/gm;
const DYNAMIC = /import\(\s*'([^']+)'\s*\)/g;

/** Whether every name of `{ a, type b }` is a type (then the import is erased). */
function allInlineTypes(clause: string): boolean {
  const m = /^\{([^}]*)\}$/s.exec(clause.trim());
  if (!m) return false;
  const names = m[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

function edgesOf(file: string): Edge[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith('.')) return;
    out.push({ to: path.resolve(path.dirname(file), spec), typeOnly });
  };
  for (const m of text.matchAll(STATIC)) add(m[4], Boolean(m[2]) || allInlineTypes(m[3]));
  for (const m of text.matchAll(BARE)) add(m[1], false);
  for (const m of text.matchAll(DYNAMIC)) add(m[1], false);
  return out;
}

const rel = (p: string) => path.relative(SRC, p).split(path.sep).join('/');

const files = walk(SRC);
const graph = new Map<string, Edge[]>(files.map((f) => [f, edgesOf(f)]));
const problems: string[] = [];

for (const [file, edges] of graph) {
  const from = rel(file);
  for (const rule of LAYER_RULES) {
    if (!from.startsWith(rule.from)) continue;
    for (const e of edges) {
      const to = rel(e.to);
      if (!rule.forbidden.some((f) => to.startsWith(f))) continue;
      problems.push(`wrong-way import: src/${from} imports src/${to}`);
    }
  }
}

// Cycles among runtime imports: depth-first search, reporting each cycle once.
const runtime = new Map([...graph].map(([f, es]) => [f, es.filter((e) => !e.typeOnly).map((e) => e.to)]));
const state = new Map<string, 'open' | 'done'>();
const stack: string[] = [];
const seen = new Set<string>();
function visit(f: string) {
  state.set(f, 'open');
  stack.push(f);
  for (const to of runtime.get(f) ?? []) {
    if (!runtime.has(to)) continue;
    if (state.get(to) === 'open') {
      const cycle = stack.slice(stack.indexOf(to)).map(rel);
      const key = [...cycle].sort().join(' ');
      if (!seen.has(key)) {
        seen.add(key);
        problems.push(`import cycle: ${[...cycle, rel(to)].map((p) => `src/${p}`).join(' → ')}`);
      }
    } else if (!state.has(to)) visit(to);
  }
  stack.pop();
  state.set(f, 'done');
}
for (const f of files) if (!state.has(f)) visit(f);

if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(`check-imports: ${problems.length} problem(s).`);
  process.exit(1);
}
console.log(`check-imports: ${files.length} files, no wrong-way imports, no cycles.`);
