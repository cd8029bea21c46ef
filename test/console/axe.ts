/**
 * The accessibility check of the browser tests: axe-core (node_modules/axe-core/axe.min.js) run in
 * the page, answering the serious and critical violations only.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: string | undefined;

/** One serious or critical violation: the rule, its impact, its help text and where it was found. */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core on the page as it is now (all its default rules) and answers the violations of the
 * given impacts (serious and critical by default), each with the selectors of its first five nodes.
 * The console's CSP (`script-src 'self'`) forbids an injected script tag, so the library's source is
 * evaluated through the DevTools protocol, which the page's CSP does not govern.
 */
export async function axeViolations(
  page: Page,
  impacts: readonly string[] = ['serious', 'critical'],
): Promise<AxeViolation[]> {
  source ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(source);
  return page.evaluate(async (impacts) => {
    interface Found {
      id: string;
      impact?: string;
      help: string;
      nodes: { target: string[] }[];
    }
    const axe = (
      window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: Found[] }> } }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => impacts.includes(v.impact ?? ''))
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
      }));
  }, impacts);
}

/** The violations as lines a failing assertion can show. */
export function describeViolations(where: string, violations: AxeViolation[]): string {
  return violations
    .map((v) => `${where}: ${v.id} (${v.impact}) ${v.help} — ${v.targets.join(' | ')}`)
    .join('\n');
}
