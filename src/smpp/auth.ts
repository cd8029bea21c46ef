import type { Db } from '../db/client.ts';
import { findSmppCredentialBySystemId, type SmppCredentialRow } from '../db/queries/smpp.ts';
import { FailureBudget } from '../domain/auth/failure-budget.ts';
import { verifySecret } from '../domain/auth/secrets.ts';

/** Why a bind was refused. */
export type BindRefusal = 'unknown-system-id' | 'wrong-password' | 'locked';

/** Failed binds allowed per minute, as the token endpoint's client authentication. */
export interface BindLimits {
  failuresPerSystemId: number;
  failuresPerIp: number;
}

export const DEFAULT_BIND_LIMITS: BindLimits = { failuresPerSystemId: 10, failuresPerIp: 20 };

/** Longer system_ids are never issued; they are keyed by a prefix so the budget map stays small. */
const KEY_MAX = 32;

/**
 * Checks bind credentials. Each attempt first takes a unit of the failure budget of its IP and of
 * its system_id (given back when it succeeds), so neither a caller nor a target system_id can make
 * this process run more than the budget's worth of scrypt a minute: past it the bind is refused
 * (ESME_RBINDFAIL) before any hashing, until the minute has passed.
 */
export class BindAuthenticator {
  /** scrypt verifications run so far (read by tests). */
  hashChecks = 0;
  private readonly perIp: FailureBudget;
  private readonly perSystemId: FailureBudget;

  constructor(
    private readonly db: Db,
    limits: BindLimits = DEFAULT_BIND_LIMITS,
  ) {
    this.perIp = new FailureBudget(limits.failuresPerIp);
    this.perSystemId = new FailureBudget(limits.failuresPerSystemId);
  }

  /** The credential for a correct (system_id, password), or why not. */
  async authenticate(
    systemId: string,
    password: string,
    ip: string,
  ): Promise<
    { ok: true; credential: SmppCredentialRow } | { ok: false; reason: BindRefusal; retryAfter?: number }
  > {
    const ipKey = [ip];
    const idKey = [systemId.slice(0, KEY_MAX)];
    const byIp = this.perIp.take(ipKey);
    const byId = byIp.allowed ? this.perSystemId.take(idKey) : byIp;
    if (!byId.allowed) {
      if (byIp.allowed) this.perIp.giveBack(ipKey);
      return { ok: false, reason: 'locked', retryAfter: Math.max(byIp.retryAfter, byId.retryAfter) };
    }
    const credential = systemId ? await findSmppCredentialBySystemId(this.db, systemId) : undefined;
    if (!credential) return { ok: false, reason: 'unknown-system-id' };
    this.hashChecks++;
    if (!(await verifySecret(password, credential.password_hash)))
      return { ok: false, reason: 'wrong-password' };
    this.perIp.giveBack(ipKey);
    this.perSystemId.giveBack(idKey);
    return { ok: true, credential };
  }
}
