/**
 * Writes the generated tables of the reference pages (docs/reference/*.md), each between its marker
 * comments (`<!-- generated:NAME -->` … `<!-- /generated:NAME -->`), from the code:
 *   scopes       SCOPES and SCOPE_DESCRIPTIONS (src/schemas/scopes.ts) and the scope each route
 *                declares (read from the OpenAPI document the API app builds; no database is touched)
 *                → docs/reference/scopes.md
 *   limits       the named constants listed in LIMITS below → docs/reference/limits.md
 *   events       the event payload descriptions EVENT_DOCS (src/schemas/event-docs.ts)
 *                → docs/reference/events.md
 *   error-codes  the registry ERRORS (src/errors.ts) → docs/reference/errors.md
 * Run it as `npm run readme:tables`; test/docs/readme.test.ts fails when a page differs from what
 * it writes. Everything outside the markers is left as it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import { loadConfig } from '../src/config.ts';
import { createContext } from '../src/context.ts';
import { createPool } from '../src/db/client.ts';
import { IDEMPOTENCY_TTL_HOURS } from '../src/db/queries/idempotency-keys.ts';
import { MAX_ATTEMPTS } from '../src/domain/send/dispatch/submit.ts';
import { DEFAULT_RETRY_POLICY } from '../src/domain/webhooks/retry-policy.ts';
import { PREVIOUS_SECRET_GRACE_MS } from '../src/domain/webhooks/rotate-secret.ts';
import { MAX_URL_LENGTH } from '../src/domain/webhooks/validate-destination.ts';
import { ERRORS } from '../src/errors.ts';
import { buildApiApp } from '../src/http/app.ts';
import { JSON_BODY_LIMIT } from '../src/http/plugins/content-types.ts';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../src/http/plugins/idempotency.ts';
import { RATE_LIMIT_WINDOW_MS } from '../src/http/rate-limiter.ts';
import { DEFAULT_THROUGHPUT } from '../src/messaging/throughput.ts';
import { CreateCampaignBody, QuickCampaignBody } from '../src/schemas/campaigns.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../src/schemas/common.ts';
import { CreateDripBody } from '../src/schemas/drips.ts';
import { EVENT_DOCS } from '../src/schemas/event-docs.ts';
import { CSV_BODY_LIMIT, MAX_DAILY_CAP } from '../src/schemas/limits.ts';
import { StatsQuery } from '../src/schemas/links.ts';
import { SendMessagesBody } from '../src/schemas/messages.ts';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../src/schemas/scopes.ts';
import { CreateTemplateBody } from '../src/schemas/templates.ts';
import { WEBHOOK_TIMEOUT_MS } from '../src/workers/webhook-delivery.ts';

export const README = fileURLToPath(new URL('../README.md', import.meta.url));
/** The folder of the reference pages the tables are written to. */
export const REFERENCE = fileURLToPath(new URL('../docs/reference/', import.meta.url));
/** The command that rewrites the tables; the test's failure message names it. */
export const COMMAND = 'npm run readme:tables';

/** The names of the generated sections. */
export const SECTIONS = ['scopes', 'limits', 'events', 'error-codes'] as const;
export type Section = (typeof SECTIONS)[number];

/** The page each section is written to (a path inside docs/reference/). */
export const PAGES: Record<Section, string> = {
  scopes: 'scopes.md',
  limits: 'limits.md',
  events: 'events.md',
  'error-codes': 'errors.md',
};
/** The absolute path of a section's page. */
export const pageOf = (section: Section) => path.join(REFERENCE, PAGES[section]);

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

// ---- scopes --------------------------------------------------------------------------------------

type ApiDocument = {
  paths?: Record<string, Record<string, { security?: { oauth2?: string[] }[] }>>;
};

/** The OpenAPI document the API app builds (no database is touched). */
export async function apiDocument(): Promise<ApiDocument> {
  const config = { ...loadConfig({}), redisUrl: undefined };
  const db = createPool('postgres://unused@127.0.0.1:1/unused', 1);
  const ctx = createContext(config, db);
  const app = await buildApiApp(ctx);
  try {
    return app.swagger() as ApiDocument;
  } finally {
    await app.close();
    await ctx.close();
    await db.end();
  }
}

/** `METHOD path` of every operation of the API listener, by the scope its route declares. */
export async function operationsByScope(doc?: ApiDocument): Promise<Map<string, string[]>> {
  const byScope = new Map<string, string[]>();
  for (const [p, ops] of Object.entries((doc ?? (await apiDocument())).paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      for (const scope of op.security?.flatMap((s) => s.oauth2 ?? []) ?? []) {
        const short = p.replace(/^\/v1\/accounts\/\{accountId\}/, '…');
        byScope.set(scope, [...(byScope.get(scope) ?? []), `${method.toUpperCase()} ${short}`]);
      }
    }
  }
  return byScope;
}

/** One heading per scope: what it grants and the operations that require it. */
function scopesTable(ops: Map<string, string[]>): string {
  return SCOPES.map((s) => {
    const grants = SCOPE_DESCRIPTIONS[s] ?? '(no description: add one to SCOPE_DESCRIPTIONS)';
    const operations = (ops.get(s) ?? ['(no operation)']).map((o) => `\`${o}\``).join(', ');
    return `### \`${s}\`\n\n${wrap(grants)}\n\n${wrap(`Operations: ${operations}.`)}`;
  }).join('\n\n');
}

// ---- events --------------------------------------------------------------------------------------

/** Prose wrapped at `width` columns (words are never split; a longer word keeps its own line). */
export function wrap(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.replace(/\s+/g, ' ').trim().split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

/** One heading per event type: when it is emitted, and its `data` (long texts do not fit a table). */
function eventsTable(): string {
  const docs: Record<string, { summary: string; data: string }> = EVENT_DOCS;
  return Object.entries(docs)
    .map(
      ([type, d]) =>
        `### \`${type}\`\n\n${wrap(`**When:** ${d.summary}`)}\n\n${wrap(`**\`data\`:** ${d.data}`)}`,
    )
    .join('\n\n');
}

// ---- error codes ---------------------------------------------------------------------------------

function errorCodesTable(): string {
  const registry: Record<string, { status: number; message: string }> = ERRORS;
  return table(
    ['code', 'HTTP', 'meaning'],
    Object.entries(registry).map(([code, e]) => [`\`${code}\``, String(e.status), cell(e.message)]),
  );
}

// ---- limits --------------------------------------------------------------------------------------

const KiB = 1024;
const MiB = 1024 * KiB;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** 16777216 → "16 MiB". */
export function bytes(n: number): string {
  if (n >= MiB && n % (MiB / 4) === 0) return `${n / MiB} MiB`;
  if (n >= KiB && n % KiB === 0) return `${n / KiB} KiB`;
  return `${n.toLocaleString('en-US')} bytes`;
}

/** 432000000 → "5 days", 300000 → "5 min", 0 → "0 s". */
export function duration(ms: number): string {
  for (const [unit, size] of [
    ['days', DAY],
    ['h', HOUR],
    ['min', MINUTE],
    ['s', SECOND],
  ] as const) {
    // Days from two on: "24 h" reads better than "1 day".
    if (ms >= (unit === 'days' ? 2 * size : size) && ms % size === 0) return `${ms / size} ${unit}`;
  }
  return ms === 0 ? '0 s' : `${ms} ms`;
}

const count = (n: number) => n.toLocaleString('en-US');

/** A keyword of a schema found by its property path (`items` steps into an array), or a clear error. */
function schemaLimit(
  schemaName: string,
  schema: TSchema,
  at: string[],
  keyword: 'maxLength' | 'maxItems',
): number {
  let s: TSchema | undefined = schema;
  for (const step of at) s = step === 'items' ? s?.items : s?.properties?.[step];
  const v = s?.[keyword];
  if (typeof v !== 'number') {
    throw new Error(
      `limits: ${schemaName}.${at.join('.')} has no ${keyword} any more: update LIMITS in scripts/readme-tables.ts`,
    );
  }
  return v;
}

interface Limit {
  limit: string;
  value: string;
  /** The constant (or schema) the value comes from, and its file. */
  source: string;
}

/** The limits docs/reference/limits.md lists. Each value is read from the code; add a row here for a new limit. */
export function limits(): Limit[] {
  const defaults = loadConfig({});
  const schemas = 'src/schemas';
  const text = (what: string, name: string, schema: TSchema, at: string[], file: string): Limit => ({
    limit: what,
    value: `${count(schemaLimit(name, schema, at, 'maxLength'))} characters`,
    source: `\`${name}\` \`${at.filter((s) => s !== 'items').join('.')}\` (\`${schemas}/${file}\`)`,
  });
  const policy = DEFAULT_RETRY_POLICY;
  return [
    {
      limit: 'JSON and form-encoded request body (over it: 413 `VAL-003`)',
      value: bytes(JSON_BODY_LIMIT),
      source: '`JSON_BODY_LIMIT` (`src/http/plugins/content-types.ts`)',
    },
    {
      limit: 'CSV contact upload (`POST …/contacts` with `Content-Type: text/csv`)',
      value: bytes(CSV_BODY_LIMIT),
      source: '`CSV_BODY_LIMIT` (`src/schemas/limits.ts`)',
    },
    {
      limit: '`limit` of list operations (`offset` ≥ 0)',
      value: `1..${PAGE_LIMIT_MAX}, default ${PAGE_LIMIT_DEFAULT} (a link source's daily stats: default ${StatsQuery.properties.limit.default} days)`,
      source:
        '`PAGE_LIMIT_MAX`, `PAGE_LIMIT_DEFAULT` (`src/schemas/common.ts`), `StatsQuery` (`src/schemas/links.ts`)',
    },
    {
      limit: 'requests per API client (the token endpoint: per IP address)',
      value: `${count(defaults.rateLimitPerMinute)} per ${duration(RATE_LIMIT_WINDOW_MS)} window (default)`,
      source:
        '`RATE_LIMIT_PER_MINUTE` (`src/config.ts`), `RATE_LIMIT_WINDOW_MS` (`src/http/rate-limiter.ts`)',
    },
    {
      limit: 'access-token lifetime',
      value: `${duration(defaults.tokenTtlSeconds * SECOND)} (default)`,
      source: '`TOKEN_TTL_SECONDS` (`src/config.ts`)',
    },
    {
      limit: '`Idempotency-Key` length',
      value: `1..${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`,
      source: '`IDEMPOTENCY_KEY_MAX_LENGTH` (`src/http/plugins/idempotency.ts`)',
    },
    {
      limit: '`Idempotency-Key` and its stored answer kept for',
      value: duration(IDEMPOTENCY_TTL_HOURS * HOUR),
      source: '`IDEMPOTENCY_TTL_HOURS` (`src/db/queries/idempotency-keys.ts`)',
    },
    text(
      'text of a send (`POST …/messages` `template`)',
      'SendMessagesBody',
      SendMessagesBody,
      ['template'],
      'messages.ts',
    ),
    text(
      'text of a message template',
      'CreateTemplateBody',
      CreateTemplateBody,
      ['template'],
      'templates.ts',
    ),
    text('text of a campaign', 'CreateCampaignBody', CreateCampaignBody, ['template'], 'campaigns.ts'),
    text(
      'free text of a send or campaign selector (`filters.q`)',
      'SendMessagesBody',
      SendMessagesBody,
      ['filters', 'q'],
      'messages.ts',
    ),
    text(
      'text of a quick campaign',
      'QuickCampaignBody',
      QuickCampaignBody,
      ['message', 'message'],
      'campaigns.ts',
    ),
    text(
      'text of a drip step',
      'CreateDripBody',
      CreateDripBody,
      ['messages', 'items', 'message'],
      'drips.ts',
    ),
    {
      limit: 'steps of a drip campaign',
      value: count(schemaLimit('CreateDripBody', CreateDripBody, ['messages'], 'maxItems')),
      source: '`CreateDripBody` `messages` (`src/schemas/drips.ts`)',
    },
    {
      limit: 'media items of a send',
      value: count(schemaLimit('SendMessagesBody', SendMessagesBody, ['media'], 'maxItems')),
      source: '`SendMessagesBody` `media` (`src/schemas/messages.ts`)',
    },
    {
      limit: 'provider attempts of a message (retryable failures back off; a final failure is refunded)',
      value: count(MAX_ATTEMPTS),
      source: '`MAX_ATTEMPTS` (`src/domain/send/dispatch/submit.ts`)',
    },
    {
      limit:
        'default throughput of a new number, by type (`PUT …/phonenumbers/{id} {throughput}` changes it)',
      value: `${Object.entries(DEFAULT_THROUGHPUT)
        .map(([type, mps]) => `${type} ${count(mps)}`)
        .join(', ')} messages/s`,
      source: '`DEFAULT_THROUGHPUT` (`src/messaging/throughput.ts`)',
    },
    {
      limit:
        'daily cap of a number or sender group (`dailyCap`; absent: none), per day of the account’s time zone',
      value: `1 to ${count(MAX_DAILY_CAP)} messages`,
      source: '`MAX_DAILY_CAP` (`src/schemas/limits.ts`)',
    },
    {
      limit: 'webhook destination URL length',
      value: `${count(MAX_URL_LENGTH)} characters`,
      source: '`MAX_URL_LENGTH` (`src/domain/webhooks/validate-destination.ts`)',
    },
    {
      limit: 'webhook delivery: a 2xx must arrive within',
      value: duration(WEBHOOK_TIMEOUT_MS),
      source: '`WEBHOOK_TIMEOUT_MS` (`src/workers/webhook-delivery.ts`)',
    },
    {
      limit: `webhook delivery attempts, and the wait after each failure (±${policy.jitter * 100} % jitter)`,
      value: `${policy.schedule.length} in all: the first at once, then after ${policy.schedule.slice(1).map(duration).join(', ')}`,
      source: '`DEFAULT_RETRY_POLICY` (`src/domain/webhooks/retry-policy.ts`)',
    },
    {
      limit: 'a subscription failing without one success is disabled after',
      value: duration(policy.disableAfterMs),
      source: '`DEFAULT_RETRY_POLICY.disableAfterMs` (`src/domain/webhooks/retry-policy.ts`)',
    },
    {
      limit: 'after a secret rotation, the previous secret keeps signing for',
      value: duration(PREVIOUS_SECRET_GRACE_MS),
      source: '`PREVIOUS_SECRET_GRACE_MS` (`src/domain/webhooks/rotate-secret.ts`)',
    },
  ];
}

function limitsTable(): string {
  return table(
    ['limit', 'value', 'in the code'],
    limits().map((l) => [cell(l.limit), cell(l.value), cell(l.source)]),
  );
}

// ---- the pages ------------------------------------------------------------------------------------

/** Every generated table, by section name. */
export async function generatedTables(): Promise<Record<Section, string>> {
  return {
    scopes: scopesTable(await operationsByScope()),
    limits: limitsTable(),
    events: eventsTable(),
    'error-codes': errorCodesTable(),
  };
}

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The text with the content of each section given replaced by its table. A section's markers must
 * each appear once, on a line of their own; whatever lies between them (an old table, a merge's
 * leftovers) is replaced.
 */
export function applyTables(text: string, tables: Partial<Record<Section, string>>): string {
  let out = text;
  for (const name of SECTIONS) {
    const content = tables[name];
    if (content === undefined) continue;
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const re = new RegExp(`^${reEscape(open)}[ \\t]*$[\\s\\S]*?^${reEscape(close)}[ \\t]*$`, 'm');
    const found = out.split('\n').filter((l) => l.trim() === open || l.trim() === close).length;
    if (found !== 2 || !re.test(out)) {
      throw new Error(
        `docs/reference/${PAGES[name]} needs exactly one "${open}" line followed later by one "${close}" line (found ${found} marker lines)`,
      );
    }
    out = out.replace(re, () => `${open}\n\n${content}\n\n${close}`);
  }
  return out;
}

/** The sections whose content differs between two texts. */
export function changedSections(before: string, after: string): Section[] {
  const body = (text: string, name: Section) => {
    const m = new RegExp(
      `<!-- generated:${reEscape(name)} -->([\\s\\S]*?)<!-- /generated:${reEscape(name)} -->`,
    ).exec(text);
    return m?.[1]?.trim();
  };
  return SECTIONS.filter((s) => body(before, s) !== body(after, s));
}

/** Each page as it is and as the code would write it. */
export async function pages(): Promise<{ section: Section; file: string; before: string; after: string }[]> {
  const tables = await generatedTables();
  return SECTIONS.map((section) => {
    const file = pageOf(section);
    const before = fs.readFileSync(file, 'utf8');
    return { section, file, before, after: applyTables(before, { [section]: tables[section] }) };
  });
}

async function main() {
  for (const { section, file, before, after } of await pages()) {
    const where = path.relative(process.cwd(), file) || file;
    if (after === before) console.log(`${where}: up to date`);
    else {
      fs.writeFileSync(file, after);
      const changed = changedSections(before, after).includes(section);
      console.log(`${where}: rewrote ${changed ? section : 'the blank lines around the table'}`);
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
