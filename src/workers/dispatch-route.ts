import type { AppContext } from '../context.ts';
import { routesForAccounts } from '../db/queries/routes.ts';
import { parseMobile } from '../messaging/phone.ts';
import { chooseProvider, matchRoute, providerOrder, type Route } from '../messaging/routing.ts';
import type { ProviderName } from '../providers/types.ts';
import type { Claimed } from './dispatch-submit.ts';

function countryOf(to: string): string | undefined {
  return parseMobile(to)?.country;
}

/**
 * Sets the provider of each claimed message by its route (docs/routing.md), before anything is
 * marked in flight: the account's routes, else the default table (account NULL); a message no
 * route matches keeps its number's provider. A retried message moves to the next provider of its
 * route only when its previous attempt was refused outright or never left (messaging/routing.ts);
 * after an attempt of unknown fate it stays where it went. `failover` tells the recorder a refusal
 * may go to the next provider at once.
 */
export async function routeClaims(ctx: AppContext, claimed: Claimed[]): Promise<void> {
  if (claimed.length === 0) return;
  const accounts = [...new Set(claimed.map((m) => m.account_id))];
  const rows = await routesForAccounts(ctx.db, accounts);
  if (rows.length === 0) return;
  const routes: Route[] = rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    prefix: r.prefix,
    country: r.country,
    providers: r.providers,
  }));
  const has = (p: string) => ctx.providers.get(p as ProviderName) !== undefined;
  const up = (p: string) => ctx.providers.get(p as ProviderName)?.linkUp?.() ?? true;
  const countries = new Map<string, string | undefined>();
  const memoCountry = (to: string) => {
    if (!countries.has(to)) countries.set(to, countryOf(to));
    return countries.get(to);
  };
  for (const m of claimed) {
    const route = matchRoute(routes, m.account_id, m.to_number, memoCountry);
    if (!route) continue;
    const order = providerOrder(route.providers, m.id).filter(has);
    const last =
      !m.ranged && m.attempts > 1 && m.last_provider
        ? { provider: m.last_provider, error: m.last_error ?? null }
        : undefined;
    const chosen = chooseProvider({ order, last, up, has });
    if (!chosen) continue;
    m.provider = chosen;
    const at = order.indexOf(chosen);
    m.failover = at >= 0 && at < order.length - 1;
  }
}
