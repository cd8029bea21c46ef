import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/client.ts';
import { type ApiClientRow, findClientById } from '../../db/queries/api-clients.ts';
import { fail } from '../../errors.ts';
import { FailureBudget } from './failure-budget.ts';
import { verifySecret } from './secrets.ts';

/** Limits of the token endpoint's client authentication (failed attempts per minute). */
export interface ClientAuthLimits {
  /** Failed attempts per client id and minute, in one process. */
  failuresPerClient: number;
  /** Failed attempts per caller IP and minute, in one process. */
  failuresPerIp: number;
  /** How long a verified (client id, secret) pair is remembered. */
  verifiedTtlMs: number;
}

export const DEFAULT_CLIENT_AUTH_LIMITS: ClientAuthLimits = {
  failuresPerClient: 10,
  failuresPerIp: 20,
  verifiedTtlMs: 60_000,
};

const VERIFIED_MAX = 10_000;
/** Longer ids than this are never issued; they are keyed by a prefix so the budget map stays small. */
const CLIENT_KEY_MAX = 128;

/**
 * Authenticates API clients at the token endpoint without letting it become a lever:
 *
 * - A pair verified in the last minute is remembered under an HMAC of (client id, secret) with a
 *   key drawn at start-up (the secret itself is never kept); a hit costs a primary-key read, which
 *   also checks that the client is not revoked and its secret hash is the one verified, so a
 *   revocation or a new secret ends the memory in every process at once.
 * - Anything else first takes one unit of the failure budget of its IP and of its client id (given
 *   back on success), so neither a caller nor a target id can make this process run more than the
 *   budget's worth of scrypt a minute: past it, 429 before any hashing.
 * - An unknown client id costs no scrypt: it waits about as long as a real verification has been
 *   taking lately (a moving average of measured scrypt times, ±20 %), on a timer, so its answer is in
 *   the same time class as a wrong secret's and reveals nothing about which ids exist.
 */
export class ClientAuthenticator {
  /** scrypt verifications run so far (read by tests and the token bench). */
  hashChecks = 0;
  private readonly cacheKey = randomBytes(32);
  private readonly verified = new Map<string, { clientId: string; secretHash: string; until: number }>();
  private readonly perIp: FailureBudget;
  private readonly perClient: FailureBudget;
  /** Moving average of recent scrypt verification times (ms); starts at the cost measured here. */
  private typicalMs = 60;

  constructor(
    private readonly db: Db,
    private readonly limits: ClientAuthLimits = DEFAULT_CLIENT_AUTH_LIMITS,
  ) {
    this.perIp = new FailureBudget(limits.failuresPerIp);
    this.perClient = new FailureBudget(limits.failuresPerClient);
  }

  private fingerprint(clientId: string, secret: string): string {
    return createHmac('sha256', this.cacheKey)
      .update(clientId)
      .update('\0')
      .update(secret)
      .digest('base64url');
  }

  /** Answers the client for a correct, unrevoked (id, secret); otherwise throws invalid_client or RATE-001. */
  async authenticate(clientId: string, secret: string, ip: string): Promise<ApiClientRow> {
    const fp = this.fingerprint(clientId, secret);
    const remembered = this.verified.get(fp);
    if (remembered && remembered.until > Date.now()) {
      const client = await findClientById(this.db, clientId);
      if (client && !client.revoked_at && client.secret_hash === remembered.secretHash) return client;
      this.verified.delete(fp);
    }

    const ipKey = [ip];
    const clientKey = [clientId.slice(0, CLIENT_KEY_MAX)];
    const byIp = this.perIp.take(ipKey);
    const byClient = byIp.allowed ? this.perClient.take(clientKey) : byIp;
    if (!byClient.allowed) {
      if (byIp.allowed) this.perIp.giveBack(ipKey);
      const retryAfter = Math.max(byIp.retryAfter, byClient.retryAfter);
      fail('RATE-001', `Too many failed token requests; retry after ${retryAfter} s.`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }

    const client = await findClientById(this.db, clientId);
    if (!client) {
      await sleep(this.typicalMs * (0.8 + Math.random() * 0.4));
      fail('invalid_client');
    }
    const started = performance.now();
    this.hashChecks++;
    const ok = await verifySecret(secret, client.secret_hash);
    this.typicalMs = this.typicalMs * 0.8 + (performance.now() - started) * 0.2;
    if (!ok || client.revoked_at) fail('invalid_client');

    this.perIp.giveBack(ipKey);
    this.perClient.giveBack(clientKey);
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(fp, {
      clientId,
      secretHash: client.secret_hash,
      until: Date.now() + this.limits.verifiedTtlMs,
    });
    return client;
  }

  /** Forgets every remembered secret of a client (revocation in this process). */
  forget(clientId: string): void {
    for (const [fp, v] of this.verified) if (v.clientId === clientId) this.verified.delete(fp);
  }
}
