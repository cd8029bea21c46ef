import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { findUserByEmail, noteFailedSignIn, type UserRow, useDevice } from '../../db/queries/users.ts';
import { fail } from '../../errors.ts';
import { addressKey } from '../../util/address-key.ts';
import { FailureBudget } from '../auth/failure-budget.ts';
import { hashSecret, verifySecret } from '../auth/secrets.ts';
import { checkPassword, PASSWORD_MAX } from './passwords.ts';

/** Bounds of the in-memory maps (made-up e-mails and addresses must not grow them without end). */
const MAX_EMAILS = 50_000;
const MAX_ADDRESSES_PER_EMAIL = 1_000;
/**
 * Failed password checks a minute for one e-mail from devices the person has not signed in from
 * (no device cookie of theirs), whichever addresses they come from: what a flood of wrong passwords
 * spread over many addresses can make this process spend on scrypt for one e-mail.
 */
export const UNKNOWN_DEVICE_FAILURES_PER_EMAIL_PER_MINUTE = 10;

/** Deletes the oldest entries of a map (insertion order) until it has room for one more. */
function makeRoom<K, V>(map: Map<K, V>, max: number): void {
  for (const k of map.keys()) {
    if (map.size < max) return;
    map.delete(k);
  }
}

/**
 * Checks a console password (a sign-in, or accepting an invitation as an existing user) so that
 * abuse costs the abuser, not the person signing in:
 *
 * - **Per address** (an IPv6 /64): at most CONSOLE_SIGN_IN_FAILURES_PER_MINUTE failures a minute,
 *   counted before any work; past it 429 RATE-001 at once.
 * - **No scrypt for an unknown e-mail** (or one without a password): it is answered 401 USER-001
 *   after a delay drawn around what a real verification has been taking lately (a moving average
 *   of measured scrypt times, ±20 %, on a timer: no CPU), the same time class as a wrong password.
 * - **Per e-mail**: CONSOLE_MAX_FAILED_SIGN_INS failures in a row lock the e-mail for
 *   CONSOLE_LOCK_MINUTES (in the database for a user; here, identically, for an unknown e-mail, so
 *   a lock proves nothing about whether the e-mail exists). The lock refuses (429 USER-002, at once,
 *   no work) the addresses that failed on that e-mail during the lock period; an address with no
 *   failure on it still gets its attempts, so a stranger cannot lock the real user out: their right
 *   password from their own address still signs them in (and ends the lock). Each new address a
 *   guesser uses gets one wrong guess before it is refused too. The streak starts again when a
 *   lock has ended and after a success.
 *
 * Per process, as FailureBudget: what it protects is this process's CPU and the user's sign-in.
 */
export class SignInGuard {
  private readonly perAddress: FailureBudget;
  /** Failures per e-mail from unknown devices (UNKNOWN_DEVICE_FAILURES_PER_EMAIL_PER_MINUTE). */
  private readonly perEmailUnknownDevice = new FailureBudget(UNKNOWN_DEVICE_FAILURES_PER_EMAIL_PER_MINUTE);
  /** Failure streaks of e-mails with no password, kept as users' are in the database. */
  private readonly phantoms = new Map<string, { streak: number; lockedUntil: number }>();
  /** E-mail → address key → time of that address's last failure on the e-mail. */
  private readonly failedFrom = new Map<string, Map<string, number>>();
  /** Moving average of what recent wrong passwords took (ms; scrypt and counting), first measured once. */
  private typicalMs = 0;
  private calibration: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly limits: Pick<
      Config['console'],
      'signInFailuresPerMinute' | 'maxFailedSignIns' | 'lockMinutes'
    >,
    /** The cost new passwords are hashed at (config.secretHashCost): the decoy waits as long as those take. */
    readonly hashCost?: number,
  ) {
    this.perAddress = new FailureBudget(limits.signInFailuresPerMinute);
  }

  /**
   * Answers the user whose e-mail and password these are; otherwise throws 429 RATE-001 (this
   * address failed too often), 429 USER-002 (locked for this address) or 401 USER-001 (wrong
   * e-mail or password: the same answer for an unknown e-mail, after the same time).
   */
  async verify(emailInput: string, password: string, ip: string, deviceId?: string): Promise<UserRow> {
    const email = emailInput.trim().toLowerCase();
    const addr = addressKey(ip);
    const budget = this.perAddress.take([addr]);
    if (!budget.allowed)
      fail('RATE-001', undefined, { headers: { 'retry-after': String(budget.retryAfter) } });

    // A device the person signed in from before: neither the per-e-mail limit on unknown devices
    // nor a lock holds it (it still needs the password).
    const deviceOwner = deviceId ? await useDevice(this.db, deviceId) : undefined;
    const emailKey = [email];
    if (!deviceOwner) {
      // Before any lookup, alike for made-up and real e-mails: a refusal says nothing of which
      // exists, and costs this process no scrypt and no query. It counts against the address.
      const perEmail = this.perEmailUnknownDevice.take(emailKey);
      if (!perEmail.allowed)
        fail('RATE-001', undefined, { headers: { 'retry-after': String(perEmail.retryAfter) } });
    }
    const user = await findUserByEmail(this.db, email);
    const trusted = Boolean(user && deviceOwner === user.id);
    if (deviceOwner && !trusted) {
      // Another person's device: counted as an unknown device for this e-mail.
      const perEmail = this.perEmailUnknownDevice.take(emailKey);
      if (!perEmail.allowed)
        fail('RATE-001', undefined, { headers: { 'retry-after': String(perEmail.retryAfter) } });
    }
    const now = Date.now();
    const lockedUntil = user
      ? (user.locked_until?.getTime() ?? 0)
      : (this.phantoms.get(email)?.lockedUntil ?? 0);
    if (!trusted && lockedUntil > now && this.failedHere(email, addr, now)) {
      this.perEmailUnknownDevice.giveBack(emailKey);
      fail('USER-002');
    }

    let ok = false;
    const started = performance.now();
    const checked = Boolean(user?.password_hash && password.length <= PASSWORD_MAX);
    if (checked) ok = await checkPassword(password, user!.password_hash!);
    else await this.decoyWait();
    if (!user || !ok) {
      if (user) {
        await noteFailedSignIn(this.db, user.id, this.limits.maxFailedSignIns, this.limits.lockMinutes);
        // What a wrong password costs, its counting included: the time an unknown e-mail waits.
        if (checked) this.typicalMs = this.typicalMs * 0.8 + (performance.now() - started) * 0.2;
      } else this.notePhantomFailure(email, Date.now());
      this.noteFailedHere(email, addr, Date.now());
      fail('USER-001');
    }
    this.perAddress.giveBack([addr]);
    if (!trusted) this.perEmailUnknownDevice.giveBack(emailKey);
    return user;
  }

  /** Whether `addr` failed on `email` within the lock period. */
  private failedHere(email: string, addr: string, now: number): boolean {
    const at = this.failedFrom.get(email)?.get(addr);
    return at !== undefined && at > now - this.limits.lockMinutes * 60_000;
  }

  private noteFailedHere(email: string, addr: string, now: number): void {
    let byAddr = this.failedFrom.get(email);
    if (!byAddr) {
      makeRoom(this.failedFrom, MAX_EMAILS);
      byAddr = new Map();
      this.failedFrom.set(email, byAddr);
    }
    byAddr.delete(addr);
    makeRoom(byAddr, MAX_ADDRESSES_PER_EMAIL);
    byAddr.set(addr, now);
  }

  /** As noteFailedSignIn does for a user: a streak that starts again once a lock has ended. */
  private notePhantomFailure(email: string, now: number): void {
    const prev = this.phantoms.get(email);
    const ended = prev && prev.lockedUntil !== 0 && prev.lockedUntil <= now;
    const streak = !prev || ended ? 1 : prev.streak + 1;
    const lockedUntil =
      streak >= this.limits.maxFailedSignIns
        ? now + this.limits.lockMinutes * 60_000
        : ended
          ? 0
          : (prev?.lockedUntil ?? 0);
    this.phantoms.delete(email);
    makeRoom(this.phantoms, MAX_EMAILS);
    this.phantoms.set(email, { streak, lockedUntil });
  }

  /** Waits about as long as a verification takes (a timer: the CPU is not spent). */
  private async decoyWait(): Promise<void> {
    if (this.typicalMs === 0) {
      this.calibration ??= (async () => {
        const hash = await hashSecret('a password to measure scrypt with', this.hashCost);
        const started = performance.now();
        await verifySecret('another password', hash);
        this.typicalMs ||= performance.now() - started;
      })();
      await this.calibration;
    }
    await sleep(this.typicalMs * (0.8 + Math.random() * 0.4));
  }
}
