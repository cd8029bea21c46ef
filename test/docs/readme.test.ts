import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COMMAND, changedSections, operationsByScope, pages, README } from '../../scripts/readme-tables.ts';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../src/schemas/scopes.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const readme = () => fs.readFileSync(README, 'utf8');
/** README.md and every page under docs/ (sub-folders included), as paths from the root. */
const DOCS = [
  'README.md',
  ...(fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f.split(path.sep).join('/')}`)
    .sort(),
];

/** The environment variables src/config.ts reads, each with the literal default the code gives it (if any). */
function settingsInCode(source: string): Map<string, string | undefined> {
  const settings = new Map<string, string | undefined>();
  const note = (name: string, fallback: string | undefined) => {
    const literal = fallback?.trim().match(/^(?:'([^'$]*)'|"([^"$]*)"|(-?[\d_.]+)|(true|false))$/);
    // An empty string is no default (the table shows "—").
    const value = literal
      ? (literal[1] ?? literal[2] ?? literal[3]?.replace(/_/g, '') ?? literal[4]) || undefined
      : undefined;
    if (!settings.has(name) || (settings.get(name) === undefined && value !== undefined))
      settings.set(name, value);
  };
  // Helpers called as int(env, 'NAME', fallback, …), bool(env, 'NAME', fallback), url(env, 'NAME', fallback).
  for (const m of source.matchAll(/\b\w+\(\s*env,\s*'([A-Z][A-Z0-9_]*)'(?:,\s*([^,)]+))?/g)) note(m[1], m[2]);
  // Direct reads: env.NAME, env.NAME || 'fallback', env['NAME'].
  for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)(?:\s*\|\|\s*('[^']*'|"[^"]*"|[\d_.]+))?/g))
    note(m[1], m[2]);
  for (const m of source.matchAll(/\benv\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g)) note(m[1], undefined);
  return settings;
}

/** Where the configuration table lives. */
const CONFIGURATION = 'docs/reference/configuration.md';

/** The configuration tables (one per section): each row's variable names and default texts. */
function configRows(text: string): { names: string[]; defaults: string }[] {
  const HEADER = '| variable | default | meaning |';
  const lines = text.split('\n');
  assert.ok(lines.includes(HEADER), `${CONFIGURATION} has tables headed "${HEADER}"`);
  const rows: string[] = [];
  let inTable = false;
  for (const line of lines) {
    if (line === HEADER) inTable = true;
    else if (!line.startsWith('|')) inTable = false;
    else if (inTable && !/^\|\s*-/.test(line)) rows.push(line);
  }
  return rows.map((line) => {
    const cells = line.split(/(?<!\\)\|/).slice(1, -1);
    const names = [...(cells[0] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]);
    return { names, defaults: (cells[1] ?? '').trim() };
  });
}

describe('README.md and docs/reference/', () => {
  it('has the scope, limits, event and error-code tables the code generates (docs/reference/)', async () => {
    for (const { file, before, after } of await pages()) {
      const stale = changedSections(before, after);
      assert.ok(
        before === after,
        `${path.relative(ROOT, file)} is out of date${stale.length ? ` in: ${stale.join(', ')}` : ''}. ` +
          `Run \`${COMMAND}\` and commit it (the tables come from src/schemas/scopes.ts, the routes' ` +
          'declared scopes, src/schemas/event-docs.ts, src/errors.ts and the limits listed in scripts/readme-tables.ts).',
      );
    }
  });

  it('lists only scopes that some operation requires, each described, and every scope a route requires', async () => {
    const ops = await operationsByScope();
    const unused = SCOPES.filter((s) => !ops.has(s));
    assert.deepEqual(unused, [], `scopes in SCOPES that no route declares: ${unused.join(', ')}`);
    const undescribed = SCOPES.filter((s) => !SCOPE_DESCRIPTIONS[s]?.trim());
    assert.deepEqual(
      undescribed,
      [],
      `describe in SCOPE_DESCRIPTIONS (src/domain/auth/scopes.ts): ${undescribed}`,
    );
    const unknown = [...ops.keys()].filter((s) => !(SCOPES as readonly string[]).includes(s));
    assert.deepEqual(unknown, [], `scopes declared by routes but missing from SCOPES: ${unknown.join(', ')}`);
  });

  it('documents every setting src/config.ts reads, with the default the code applies', () => {
    // src/config.ts and the sections it reads through (src/config/*.ts).
    const sources = ['src/config.ts', ...fs.readdirSync('src/config').map((f) => `src/config/${f}`)];
    const code = settingsInCode(sources.map(read).join('\n'));
    const rows = configRows(read(CONFIGURATION));
    const documented = new Set(rows.flatMap((r) => r.names));
    const missing = [...code.keys()].filter((n) => !documented.has(n));
    assert.deepEqual(missing, [], `add a row to ${CONFIGURATION}'s table for: ${missing.join(', ')}`);
    const extra = [...documented].filter((n) => !code.has(n));
    assert.deepEqual(extra, [], `${CONFIGURATION} names settings src/config.ts does not read: ${extra}`);

    const wrong: string[] = [];
    for (const row of rows) {
      const parts = row.defaults.split(/\s+\/\s+|\s*,\s*/).map((p) => p.replace(/`/g, '').trim());
      row.names.forEach((name, i) => {
        const want = code.get(name);
        if (want === undefined) return;
        const shown = parts.length === row.names.length ? parts[i] : row.defaults.replace(/`/g, '');
        const ok = parts.length === row.names.length ? shown === want : shown.includes(want);
        if (!ok) wrong.push(`${name}: the page says "${shown}", the code's default is "${want}"`);
      });
    }
    assert.deepEqual(wrong, [], `fix the defaults in ${CONFIGURATION}:\n${wrong.join('\n')}`);
  });

  it('reads settingsInCode the way src/config.ts writes settings', () => {
    const found = settingsInCode(
      "int(env, 'PORT', 3000, 0, 65535); bool(env, 'W', true); url(env, 'U', 'https://x.test');\n" +
        "host: env.HOST || '0.0.0.0', d: env.DATABASE_URL || undefined, p: env.PRICE_TABLE, b: env['B'],\n" +
        "url(env, 'PUBLIC_URL', `http://localhost:$" +
        "{port}`), int(env, 'N', 10_000)",
    );
    assert.deepEqual(Object.fromEntries(found), {
      PORT: '3000',
      W: 'true',
      U: 'https://x.test',
      HOST: '0.0.0.0',
      DATABASE_URL: undefined,
      PRICE_TABLE: undefined,
      B: undefined,
      PUBLIC_URL: undefined,
      N: '10000',
    });
  });

  it('points only at files inside this repository, and they exist', () => {
    const problems: string[] = [];
    for (const file of DOCS) {
      const text = read(file);
      const dir = path.dirname(path.join(ROOT, file));
      if (/shared\/spec|\.\.\/shared/.test(text))
        problems.push(`${file}: refers to shared/spec outside the repository`);
      for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/i.test(target)) continue;
        const abs = path.resolve(dir, target);
        if (!abs.startsWith(ROOT)) problems.push(`${file}: link outside the repository: ${target}`);
        else if (!fs.existsSync(abs)) problems.push(`${file}: link to a missing file: ${target}`);
      }
      for (const m of text.matchAll(/`((?:src|docs|scripts|test|bench|bin|console)\/[\w./-]*\w)`/g)) {
        if (m[1].includes('*')) continue;
        if (!fs.existsSync(path.join(ROOT, m[1]))) problems.push(`${file}: names a missing path: ${m[1]}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('names only npm scripts that package.json defines', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>);
    assert.ok([...readme().matchAll(/npm run (?:-s )?([\w:-]+)/g)].length > 0);
    const unknown = DOCS.flatMap((file) =>
      [...read(file).matchAll(/npm run (?:-s )?([\w:-]+)/g)]
        .map((m) => m[1])
        .filter((n) => !scripts.includes(n))
        .map((n) => `${file}: npm run ${n}`),
    );
    assert.deepEqual(unknown, []);
  });
});
