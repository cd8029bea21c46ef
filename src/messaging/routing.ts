/**
 * Routing and failover (docs/routing.md), without I/O: which route serves a destination, the
 * order in which a message tries the route's providers, and whether a failed attempt may move to
 * the next provider. The dispatcher calls it through domain/send/dispatch/route.ts.
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
 * `countryOf` is called only when no prefix matched and a country route could apply (parsing a
 * number has a cost).
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
    let countries = false;
    let any: Route | undefined;
    for (const r of routes) {
      if (r.accountId !== owner) continue;
      if (r.prefix !== null) {
        if (digits.startsWith(r.prefix) && (!best || r.prefix.length > (best.prefix as string).length))
          best = r;
      } else if (r.country !== null) countries = true;
      else any = r;
    }
    if (best) return best;
    if (countries) {
      if (country === null) country = countryOf(to);
      const byCountry = routes.find(
        (r) => r.accountId === owner && r.prefix === null && r.country === country,
      );
      if (byCountry) return byCountry;
    }
    if (any) return any;
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

/** A route's providers grouped by priority, each group by weight (heaviest first), and the orders drawn so far. */
interface Plan {
  tiers: { providers: RouteProvider[]; total: number }[];
  orders: Map<string, readonly string[]>;
}
const plans = new WeakMap<readonly RouteProvider[], Plan>();

function planOf(providers: readonly RouteProvider[]): Plan {
  let plan = plans.get(providers);
  if (plan) return plan;
  const sorted = providers
    .map((p, i) => ({ p, i }))
    .sort((a, b) => a.p.priority - b.p.priority || b.p.weight - a.p.weight || a.i - b.i)
    .map((x) => x.p);
  const tiers: Plan['tiers'] = [];
  for (const p of sorted) {
    const last = tiers[tiers.length - 1];
    if (last && last.providers[0].priority === p.priority) {
      last.providers.push(p);
      last.total += p.weight;
    } else tiers.push({ providers: [p], total: p.weight });
  }
  plan = { tiers, orders: new Map() };
  plans.set(providers, plan);
  return plan;
}

/**
 * The order in which a message tries a route's providers: by priority; within a priority the first
 * is drawn by weight from the message id (a provider of weight w comes first for w / Σw of the
 * messages), then the others by weight, heaviest first (weight 0: only when the others failed).
 * The same message always draws the same order, in every worker. The answer is shared between the
 * messages that draw the same order: do not change it.
 */
export function providerOrder(providers: readonly RouteProvider[], messageId: string): readonly string[] {
  const plan = planOf(providers);
  let key = '';
  for (let t = 0; t < plan.tiers.length; t++) {
    const tier = plan.tiers[t];
    let pick = 0;
    if (tier.providers.length > 1 && tier.total > 0) {
      let x = unitHash(t === 0 ? messageId : `${messageId}/${t}`) * tier.total;
      for (; pick < tier.providers.length - 1; pick++) {
        x -= tier.providers[pick].weight;
        if (x < 0) break;
      }
    }
    key += `${pick},`;
  }
  let order = plan.orders.get(key);
  if (!order) {
    const picks = key.split(',');
    const out: string[] = [];
    plan.tiers.forEach((tier, t) => {
      const first = tier.providers[Number(picks[t])];
      for (const p of [first, ...tier.providers.filter((q) => q !== first)])
        if (!out.includes(p.provider)) out.push(p.provider);
    });
    order = out;
    plan.orders.set(key, order);
  }
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
  /**
   * Whether the provider may send from the message's sender (senderUsable); absent: every one may.
   * Providers that may not are passed over as if the route did not name them.
   */
  usable?: (provider: string) => boolean;
}

/**
 * The provider for this attempt. A first attempt takes the first provider of its order whose link
 * is up. After an attempt whose fate is unknown (UNCERTAIN_CODES) the message stays with that
 * provider, whatever the route says: it may hold it already. After a refusal (or a submission that
 * never left) it moves on to the next provider of its order whose link is up, round the order
 * again after the last one. When no link is up, the provider it would have taken first. Providers
 * that may not send the message's sender (`usable`) are not in its order.
 */
export function chooseProvider(c: ChoiceInput): string | undefined {
  const { last } = c;
  if (last && !refusedOutright(last.error) && c.has(last.provider)) return last.provider;
  const order = c.usable ? c.order.filter(c.usable) : c.order;
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

/**
 * Whether a refusal by `chosen` may move the message on at once: a provider after it in the order
 * may send its sender and has its link up. Not round the order (after the last provider a refused
 * message waits its backoff, then starts again from the first), and not to the same provider: a
 * route whose other providers are all down must not retry the refusing one without a pause.
 */
export function movesOnAtOnce(c: Omit<ChoiceInput, 'last' | 'has'>, chosen: string): boolean {
  const at = c.order.indexOf(chosen);
  if (at < 0) return false;
  for (let k = at + 1; k < c.order.length; k++) {
    const p = c.order[k];
    if ((!c.usable || c.usable(p)) && c.up(p)) return true;
  }
  return false;
}

/**
 * Whether a provider may send from a message's sender (docs/routing.md, "The sender on
 * failover"). The sender stays the message's number whatever provider takes it. SMPP carriers and
 * the simulator send from any source address; a Twilio-compatible account only from its own
 * numbers, so a number bound to one Twilio instance (`numberProvider` of kind twilio) is never
 * handed to another Twilio instance. Other numbers may go to any provider their route names.
 */
export function senderUsable(
  kindOf: (provider: string) => string | undefined,
  numberProvider: string,
  provider: string,
): boolean {
  return provider === numberProvider || kindOf(provider) !== 'twilio' || kindOf(numberProvider) !== 'twilio';
}
