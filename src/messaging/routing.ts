/**
 * Routing and failover (docs/routing.md), without I/O: which route serves a destination, the
 * order in which a message tries the route's providers, and whether a failed attempt may move to
 * the next provider. The dispatcher calls it through workers/dispatch-route.ts.
 */

/** One provider of a route: lower priorities are tried first; weights split a priority's traffic. */
export interface RouteProvider {
  provider: string;
  priority: number;
  weight: number;
}

/** A route as the dispatcher reads it. */
export interface Route {
  id: string;
  /** null: a default route of the operator. */
  accountId: string | null;
  /** E.164 digits without '+', or null. */
  prefix: string | null;
  /** ISO 3166-1 alpha-2, or null. */
  country: string | null;
  providers: RouteProvider[];
}

/**
 * Errors of an attempt whose fate at the carrier is unknown: the request may have reached it
 * (no answer in time, the connection dropped while it was out, an unexpected fault, a crash). A
 * message whose last attempt ended so stays with that provider: sending it to another one could
 * deliver it twice. Every other retryable failure is a refusal the carrier answered, or a
 * submission that never left (the link was down, no window slot): the next provider may take it.
 * Providers name their uncertain outcomes with these codes (src/providers/*).
 */
export const UNCERTAIN_CODES: ReadonlySet<string> = new Set([
  'TWILIO-TIMEOUT',
  'TWILIO-NETWORK',
  'SMPP-TIMEOUT',
  'SMPP-DISCONNECTED',
  // Some parts of a long message were accepted before one was refused.
  'SMPP-PARTIAL',
  'MSG-010',
  'MSG-020',
]);

/** Whether a failed attempt certainly did not leave a message at its carrier. */
export function refusedOutright(error: { code?: unknown } | null | undefined): boolean {
  return !!error && typeof error.code === 'string' && !UNCERTAIN_CODES.has(error.code);
}

/**
 * The route for a destination (E.164): the account's own routes first, then the default table;
 * within each, the longest matching prefix, else the destination's country, else the catch-all.
 * `countryOf` is called only when a country route could apply (parsing a number has a cost).
 */
export function matchRoute(
  routes: readonly Route[],
  accountId: string,
  to: string,
  countryOf: (to: string) => string | undefined,
): Route | undefined {
  const digits = to.startsWith('+') ? to.slice(1) : to;
  let country: string | undefined | null = null;
  for (const owner of [accountId, null]) {
    let best: Route | undefined;
    let byCountry: Route | undefined;
    let any: Route | undefined;
    for (const r of routes) {
      if (r.accountId !== owner) continue;
      if (r.prefix !== null) {
        if (digits.startsWith(r.prefix) && (!best || r.prefix.length > (best.prefix as string).length))
          best = r;
      } else if (r.country !== null) {
        if (country === null) country = countryOf(to);
        if (country === r.country) byCountry = r;
      } else any = r;
    }
    const found = best ?? byCountry ?? any;
    if (found) return found;
  }
  return undefined;
}

/** FNV-1a of a string, as a number in [0, 1). */
function unitHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return ((h >>> 0) + 0.5) / 2 ** 32;
}

/**
 * The order in which a message tries a route's providers: by priority, and within a priority a
 * weighted order drawn from the message id (a provider of weight w comes first in w / Σw of the
 * messages; weight 0 only takes over when the others failed). The same message always draws the
 * same order, in every worker.
 */
export function providerOrder(providers: readonly RouteProvider[], messageId: string): string[] {
  const keyed = providers.map((p, i) => ({
    p,
    i,
    // Efraimidis–Spirakis: sorting by -ln(u)/w draws without replacement in proportion to w.
    key:
      p.weight > 0 ? -Math.log(unitHash(`${messageId}/${p.provider}`)) / p.weight : Number.POSITIVE_INFINITY,
  }));
  keyed.sort((a, b) => a.p.priority - b.p.priority || a.key - b.key || a.i - b.i);
  const order: string[] = [];
  for (const k of keyed) if (!order.includes(k.p.provider)) order.push(k.p.provider);
  return order;
}

/** What the choice of a provider knows of a message. */
export interface ChoiceInput {
  /** The route's providers in the message's order (providerOrder), those this process has. */
  order: readonly string[];
  /** The provider of the message's previous attempt and how it failed, if it had one. */
  last?: { provider: string; error: { code?: unknown } | null } | undefined;
  /** Whether a provider's link is up right now (a provider without a link always is). */
  up: (provider: string) => boolean;
  /** Whether this process has the provider. */
  has: (provider: string) => boolean;
}

/**
 * The provider for this attempt. A first attempt takes the first provider of its order whose link
 * is up. After an attempt whose fate is unknown (UNCERTAIN_CODES) the message stays with that
 * provider, whatever the route says: it may hold it already. After a refusal (or a submission that
 * never left) it moves on to the next provider of its order whose link is up, round the order
 * again after the last one. When no link is up, the provider it would have taken first.
 */
export function chooseProvider(c: ChoiceInput): string | undefined {
  const { order, last } = c;
  if (last && !refusedOutright(last.error) && c.has(last.provider)) return last.provider;
  if (order.length === 0) return undefined;
  let start = 0;
  if (last) {
    const at = order.indexOf(last.provider);
    if (at >= 0) start = (at + 1) % order.length;
  }
  for (let k = 0; k < order.length; k++) {
    const p = order[(start + k) % order.length];
    if (c.up(p)) return p;
  }
  return order[start];
}
