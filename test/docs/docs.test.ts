/**
 * What can be checked of the prose in README.md and docs/: the README stays a front door (a line
 * budget), prose wraps, and no page says an operation the API serves is not built.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { apiDocument } from '../../scripts/readme-tables.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const DOCS = [
  'README.md',
  ...(fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split(path.sep).join('/')}`)
    .sort(),
];

/** The README's budget: a front door, not the manual (docs/ holds the rest). */
const README_MAX_LINES = 250;
/** Prose wraps: no line of prose (or of the README) is longer. */
const PROSE_MAX = 200;
/** A table row cannot wrap; past this it belongs in prose or a page of its own. */
const TABLE_ROW_MAX = 600;

/** Each line of a page that is not inside a fenced code block, with its number. */
function linesOutsideCode(text: string): { n: number; line: string }[] {
  let fenced = false;
  const out: { n: number; line: string }[] = [];
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ n: i + 1, line });
  });
  return out;
}

/** How the pages say something is absent ("not yet done" of a job's state is not such a claim). */
const ABSENT =
  /\b(not (yet )?built|not built yet|not (yet )?(implemented|supported|available)|(is|are) (still )?missing)\b/i;

/**
 * The sentences of a page that say something is absent. A sentence ends at `. ` or a blank line;
 * a bullet starts a new one, and a table row or a heading is one (headings are not claims). Code blocks are left out.
 */
export function absenceClaims(text: string): string[] {
  const prose = linesOutsideCode(text)
    .map(({ line }) => (/^\s*[-*] |^\||^#/.test(line) ? `\n\n${line}\n\n` : line))
    .join('\n');
  return prose
    .split(/\n\s*\n|(?<=\.)\s+(?=[A-Z(`*])/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => !s.startsWith('#') && ABSENT.test(s));
}

/** The API paths a sentence names in backticks (`POST …/x/{id}`, `/v1/tools/sharefile`, `tools/sharefile`). */
export function namedOperations(sentence: string): { method?: string; path: string }[] {
  const out: { method?: string; path: string }[] = [];
  for (const m of sentence.matchAll(
    /`(?:(GET|POST|PUT|PATCH|DELETE) )?((?:…|\/v1)?\/?[a-z][\w-]*(?:\/[\w{}:.-]+)+)`/g,
  )) {
    const p = m[2];
    if (/^(src|docs|test|bench|scripts|console|bin|data)\//.test(p) || /\.\w+$/.test(p)) continue;
    out.push({ method: m[1], path: p });
  }
  return out;
}

/** A path as compared: the account prefix and `/v1` dropped, parameters all `{}`. */
const normal = (p: string) =>
  p
    .replace(/^…/, '')
    .replace(/^\/v1\/accounts\/\{accountId\}/, '')
    .replace(/^\/v1/, '')
    .replace(/^\/?/, '/')
    .replace(/\{[^}]*\}|:\w+/g, '{}');

/** The operations of the document that a named path (and method) denotes, if any. */
export function served(
  named: { method?: string; path: string },
  operations: { method: string; path: string }[],
): string[] {
  const want = normal(named.path);
  return operations
    .filter((o) => (!named.method || o.method === named.method) && normal(o.path).endsWith(want))
    .map((o) => `${o.method} ${o.path}`);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings (outside code blocks). */
function anchors(text: string): Set<string> {
  return new Set(
    linesOutsideCode(text)
      .map(({ line }) => /^#{1,6}\s+(.*)$/.exec(line)?.[1])
      .filter((h): h is string => h !== undefined)
      .map(slug),
  );
}

describe('README.md and docs/', () => {
  it(`keep the README a front door (at most ${README_MAX_LINES} lines, none over ${PROSE_MAX} characters)`, () => {
    const lines = read('README.md').split('\n');
    assert.ok(
      lines.length <= README_MAX_LINES,
      `README.md has ${lines.length} lines: move detail to a page under docs/ and link it`,
    );
    const long = lines.map((l, i) => [i + 1, l.length] as const).filter(([, len]) => len > PROSE_MAX);
    assert.deepEqual(long, [], 'README.md lines over the limit ([line, length])');
  });

  it(`wrap prose at ${PROSE_MAX} characters, and keep table rows under ${TABLE_ROW_MAX}`, () => {
    const problems: string[] = [];
    for (const file of DOCS) {
      for (const { n, line } of linesOutsideCode(read(file))) {
        const max = line.startsWith('|') ? TABLE_ROW_MAX : PROSE_MAX;
        if (line.length > max) problems.push(`${file}:${n}: ${line.length} characters`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('say of no operation that /openapi.json has that it is not built', async () => {
    const doc = await apiDocument();
    const operations = Object.entries(doc.paths ?? {}).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => ({ method: m.toUpperCase(), path: p })),
    );
    assert.ok(operations.length > 100, 'the document lists the API operations');
    const problems: string[] = [];
    for (const file of DOCS) {
      for (const sentence of absenceClaims(read(file))) {
        for (const named of namedOperations(sentence)) {
          const found = served(named, operations);
          if (found.length) {
            problems.push(`${file}: "${sentence.slice(0, 160)}…" names ${named.path}, served as ${found[0]}`);
          }
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('finds a "not built" claim about a served operation (the check itself)', () => {
    const operations = [
      { method: 'POST', path: '/v1/tools/sharefile' },
      { method: 'POST', path: '/v1/accounts/{accountId}/bulk/contacts' },
      { method: 'GET', path: '/v1/accounts/{accountId}/contacts/{contactId}' },
    ];
    const text =
      'Sparrow builds what a service needs.\n\nNot built: integrations, the `tools/sharefile`\nupload, and ' +
      '`POST …/bulk/contacts`. Contacts are read with `GET …/contacts/{id}`.\n\n' +
      '## Not built\n\n- Rescheduling (`PUT …/meetings/{id}/move`) is not built.\n';
    const claims = absenceClaims(text);
    assert.equal(claims.length, 2);
    const found = claims.flatMap((s) => namedOperations(s).flatMap((n) => served(n, operations)));
    assert.deepEqual(found, ['POST /v1/tools/sharefile', 'POST /v1/accounts/{accountId}/bulk/contacts']);
  });
  it('link to headings that exist (#anchors within the repository)', () => {
    const problems: string[] = [];
    for (const file of DOCS) {
      for (const m of read(file).matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
        const [, target, anchor] = m;
        if (/^[a-z]+:/i.test(target)) continue;
        const page = target ? path.join(path.dirname(file), target) : file;
        if (!page.endsWith('.md') || !fs.existsSync(path.join(ROOT, page))) continue;
        if (!anchors(read(page)).has(anchor))
          problems.push(`${file}: ${target}#${anchor} has no such heading`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('reads anchors as GitHub writes them', () => {
    assert.equal(slug('Background CSV imports (with progress)'), 'background-csv-imports-with-progress');
    assert.equal(slug('`PROVIDERS`'), 'providers');
    assert.equal(slug('What a client can make the service hold'), 'what-a-client-can-make-the-service-hold');
    assert.equal(
      slug('Exactly once at the carrier, as near as physics allows'),
      'exactly-once-at-the-carrier-as-near-as-physics-allows',
    );
  });
  it('name only worker tasks that src/workers runs', () => {
    const code = fs
      .readdirSync(path.join(ROOT, 'src/workers'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => read(`src/workers/${f}`))
      .join('\n');
    const tasks = new Set([...code.matchAll(/\bname: '([a-z][a-z-]*)'/g)].map((m) => m[1]));
    assert.ok(tasks.has('dispatch'), 'the tasks are read from src/workers');
    const unknown = DOCS.flatMap((file) =>
      [...read(file).matchAll(/`([a-z][a-z]*-[a-z-]+)` (?:worker|task)\b/g)]
        .map((m) => m[1])
        .filter((name) => !tasks.has(name))
        .map((name) => `${file}: \`${name}\``),
    );
    assert.deepEqual(unknown, []);
  });
});
