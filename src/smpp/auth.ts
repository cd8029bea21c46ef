import type { Db } from '../db/client.ts';
import { findSmppCredentialBySystemId, type SmppCredentialRow } from '../db/queries/smpp.ts';
import { FailureBudget } from '../domain/auth/failure-budget.ts';
import { verifySecret } from '../domain/auth/secrets.ts';
import { addressKey } from '../util/address-key.ts';

/** Why a bind was refused. */
export type BindRefusal = 'unknown-system-id' | 'wrong-password' | 'locked';

/** Failed binds allowed per minute. */
export interface BindLimits {
  /** For one system_id from one address. */
  failuresPerSystemId: number;
  /** From one address, whatever the system_id. */
  failuresPerIp: number;
  /**
   * For one system_id from all the addresses it has not bound from lately together (a guess spread
   * over many addresses); an address it bound from in the last day is not held back by it.
   */
  failuresPerSystemIdElsewhere?: number;
  /** The clock the budgets and the known binds read (Date.now; tests hold it still). */
  clock?: () => number;
}

export const DEFAULT_BIND_LIMITS: BindLimits = {
  failuresPerSystemId: 10,
  failuresPerIp: 20,
  failuresPerSystemIdElsewhere: 100,
};

/** Longer system_ids are never issued; they are keyed by a prefix so the budget map stays small. */
const KEY_MAX = 32;
/** How long, and for how many (system_id, address) pairs at most, a successful bind is remembered. */
const KNOWN_MS = 24 * 3600_000;
const KNOWN_MAX = 20_000;

/**
 * Checks bind credentials. Each attempt first takes a unit of the failure budget of its address,
 * of its (system_id, address) pair and, from an address the system_id has not bound from in the
 * last day, of the system_id's budget for such addresses (all given back when it succeeds). So a
 * caller cannot make this process run more than its budget's worth of scrypt a minute (past it
 * the bind is refused, ESME_RBINDFAIL, before any hashing, until the minute has passed), and wrong
 * passwords from one address never lock out the ESME binding from another: not from its own
 * address's budgets, nor, once it has bound from its address, from the system_id's.
 */
export class BindAuthenticator {
  /** scrypt verifications run so far (read by tests). */
  hashChecks = 0;
  private readonly perIp: FailureBudget;
  private readonly perPair: FailureBudget;
  private readonly elsewhere: FailureBudget;
  /** `system_id|address` of recent successful binds → when, oldest first. */
  private readonly known = new Map<string, number>();
  private readonly clock: () => number;

  constructor(
    private readonly db: Db,
    limits: BindLimits = DEFAULT_BIND_LIMITS,
  ) {
    this.clock = limits.clock ?? Date.now;
    this.perIp = new FailureBudget(limits.failuresPerIp, undefined, this.clock);
    this.perPair = new FailureBudget(limits.failuresPerSystemId, undefined, this.clock);
    this.elsewhere = new FailureBudget(
      limits.failuresPerSystemIdElsewhere ?? DEFAULT_BIND_LIMITS.failuresPerSystemIdElsewhere ?? 100,
      undefined,
      this.clock,
    );
  }

  /** The credential for a correct (system_id, password), or why not. */
  async authenticate(
    systemId: string,
    password: string,
    ip: string,
  ): Promise<
    { ok: true; credential: SmppCredentialRow } | { ok: false; reason: BindRefusal; retryAfter?: number }
  > {
    const address = addressKey(ip);
    const id = systemId.slice(0, KEY_MAX);
    const pair = `${id}|${address}`;
    const knownAt = this.known.get(pair);
    const isKnown = knownAt !== undefined && this.clock() - knownAt < KNOWN_MS;
    const steps: Array<[FailureBudget, string[]]> = [
      [this.perIp, [address]],
      [this.perPair, [pair]],
    ];
    if (!isKnown) steps.push([this.elsewhere, [id]]);
    const taken: Array<[FailureBudget, string[]]> = [];
    for (const [budget, key] of steps) {
      const check = budget.take(key);
      if (!check.allowed) {
        for (const [b, k] of taken) b.giveBack(k);
        return { ok: false, reason: 'locked', retryAfter: check.retryAfter };
      }
      taken.push([budget, key]);
    }
    const credential = systemId ? await findSmppCredentialBySystemId(this.db, systemId) : undefined;
    if (!credential) return { ok: false, reason: 'unknown-system-id' };
    this.hashChecks++;
    if (!(await verifySecret(password, credential.password_hash)))
      return { ok: false, reason: 'wrong-password' };
    for (const [b, k] of taken) b.giveBack(k);
    this.remember(pair);
    return { ok: true, credential };
  }

  private remember(pair: string): void {
    this.known.delete(pair);
    this.known.set(pair, this.clock());
    if (this.known.size > KNOWN_MAX) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
  }
}
