import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { AppContext } from '../../../context.ts';
import { assignedProviders } from '../../../db/queries/number-assignments.ts';
import { routesForAccounts } from '../../../db/queries/routes.ts';
import {
  chooseProvider,
  matchRoute,
  movesOnAtOnce,
  providerOrder,
  type Route,
} from '../../../messaging/routing.ts';
import { RecentMap } from '../../../providers/submission-memo.ts';
import type { Claimed } from './submit.ts';

/**
 * The country of a destination, remembered by its first six digits (the calling code and enough of
 * the national number to tell countries that share one apart, e.g. +1 by area code, +44 7781
 * Guernsey from +44 7400 Great Britain): parsing a number costs far more than routing it.
 */
const countries = new RecentMap<string, string>(20_000);
function countryOf(to: string): string | undefined {
  const key = to.slice(0, 7);
  let country = countries.get(key);
  if (country === undefined) {
    country = parsePhoneNumberFromString(to)?.country ?? '';
    countries.set(key, country);
  }
  return country || undefined;
}

/**
 * Sets the provider of each claimed message by its route (docs/routing.md), before anything is
 * marked in flight: the account's routes, else the default table (account NULL); a message no
 * route matches keeps its number's provider. A retried message moves to the next provider of its
 * route only when its previous attempt was refused outright or never left (messaging/routing.ts);
 * after an attempt of unknown fate it stays where it went. It keeps its sender, so a provider may
 * take it only where the sender is the account's: its number's own provider, the simulator (which
 * sends nothing out), or a carrier the operator assigned that number on to that account
 * (number_assignments, one query per batch, only for messages whose route names another carrier).
 * The others are passed over; with none left the message goes through its number's provider.
 * `failover` tells the recorder a refusal may go to the next provider at once (one is up after this one).
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
  const has = (p: string) => ctx.providers.get(p) !== undefined;
  const up = (p: string) => ctx.providers.get(p)?.linkUp?.() ?? true;
  const anywhere = (p: string) => p === 'simulator' || ctx.providers.get(p)?.kind === 'simulator';
  // The drawn orders are shared between messages: each is filtered once to the providers configured here.
  const configured = new Map<readonly string[], readonly string[]>();
  const routed: { m: Claimed; order: readonly string[] }[] = [];
  const asked: { accountId: string; number: string }[] = [];
  for (const m of claimed) {
    const route = matchRoute(routes, m.account_id, m.to_number, countryOf);
    if (!route) continue;
    const drawn = providerOrder(route.providers, m.id);
    let order = configured.get(drawn);
    if (!order) {
      order = drawn.filter(has);
      configured.set(drawn, order);
    }
    routed.push({ m, order });
    // Until routed, a claim's provider is its number's.
    if (order.some((p) => p !== m.provider && !anywhere(p)))
      asked.push({ accountId: m.account_id, number: m.from_number });
  }
  const assigned = await assignedProviders(ctx.db, asked);
  for (const { m, order } of routed) {
    const last =
      !m.ranged && m.attempts > 1 && m.last_provider
        ? { provider: m.last_provider, error: m.last_error ?? null }
        : undefined;
    const own = m.provider;
    const extra = assigned.get(`${m.account_id}|${m.from_number}`);
    const usable = (p: string) => p === own || anywhere(p) || extra?.has(p) === true;
    const chosen = chooseProvider({ order, last, up, has, usable });
    if (!chosen) continue;
    m.provider = chosen;
    m.failover = movesOnAtOnce({ order, up, usable }, chosen);
  }
}
