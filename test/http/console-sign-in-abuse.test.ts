/**
 * Console sign-in abuse (issue 28): made-up e-mails cost no scrypt, a flood of wrong passwords
 * spread over many addresses costs a few scrypts a minute while the person still signs in from
 * their own device, a lock's streak starts again once it ends, and a locked e-mail answers exactly
 * as a locked made-up one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { ensureUser } from '../../src/domain/users/members.ts';
import { passwordChecks } from '../../src/domain/users/passwords.ts';
import {
  SignInGuard,
  UNKNOWN_DEVICE_FAILURES_PER_EMAIL_PER_MINUTE,
} from '../../src/domain/users/sign-in-guard.ts';
import { body, startTestService, type TestService } from '../helpers.ts';

const PASSWORD = 'the real user’s password';

describe('console sign-in abuse costs the abuser, not the victim', () => {
  let svc: TestService;
  let accountId: string;

  function signIn(email: string, password: string, remoteAddress: string, device?: string) {
    return svc.api.inject({
      method: 'POST',
      url: '/console/api/session',
      headers: { 'content-type': 'application/json', ...(device ? { cookie: device } : {}) },
      payload: JSON.stringify({ email, password }),
      remoteAddress,
    });
  }
  /** The `sparrow_device=…` pair a sign-in set. */
  function deviceCookie(res: Awaited<ReturnType<typeof signIn>>): string {
    const set = res.headers['set-cookie'];
    const lines = Array.isArray(set) ? set : [String(set)];
    return lines.find((l) => l.startsWith('sparrow_device='))?.split(';')[0] ?? '';
  }
  const code = (res: Awaited<ReturnType<typeof signIn>>) =>
    res.statusCode === 200 ? 'ok' : String(body(res).error.code);

  async function user(email: string) {
    await ensureUser(
      svc.db,
      accountId,
      { email, password: PASSWORD, role: 'Administrator', hashCost: svc.config.secretHashCost },
      { id: 'test' },
    );
    return email;
  }

  before(async () => {
    svc = await startTestService();
    accountId = (await svc.newAccount()).accountId;
  });
  after(() => svc.close());

  it('an unknown e-mail is refused as a wrong password (401 USER-001) without running scrypt', async () => {
    const real = await user('scrypt@example.com');
    // The first unknown e-mail of a process measures scrypt once (the delay's reference).
    await signIn('warm-up@nowhere.example', 'some password', '127.0.1.1');
    const before = passwordChecks.scrypt;
    for (let i = 0; i < 20; i++) {
      const res = await signIn(`made-up-${i}@nowhere.example`, 'some password', `127.0.1.${i + 2}`);
      assert.equal(res.statusCode, 401);
      assert.equal(body(res).error.code, 'USER-001');
    }
    assert.equal(passwordChecks.scrypt, before, 'no scrypt for unknown e-mails');
    // A wrong password for a real user is checked (one scrypt), and answers alike.
    const wrong = await signIn(real, 'not the password', '127.0.1.50');
    assert.equal(passwordChecks.scrypt, before + 1);
    assert.equal(wrong.statusCode, 401);
    assert.equal(body(wrong).error.code, 'USER-001');
  });

  it('a locked real e-mail and a locked made-up one answer the same (status, code, message, headers)', async () => {
    const real = await user('locked@example.com');
    const fake = 'never-registered@example.com';
    for (let i = 0; i < 5; i++) {
      assert.equal((await signIn(real, `wrong ${i}`, '127.0.2.1')).statusCode, 401);
      assert.equal((await signIn(fake, `wrong ${i}`, '127.0.2.1')).statusCode, 401);
    }
    const a = await signIn(real, 'wrong again', '127.0.2.1');
    const b = await signIn(fake, 'wrong again', '127.0.2.1');
    assert.equal(a.statusCode, 429, a.body);
    assert.equal(b.statusCode, a.statusCode, b.body);
    assert.deepEqual(body(b), body(a));
    const headers = (h: Record<string, unknown>) => {
      const { date, 'request-id': _r, 'x-request-id': _x, ...rest } = h;
      return rest;
    };
    assert.deepEqual(headers(b.headers), headers(a.headers));
    // Even with the right password, from that address: locked.
    assert.equal((await signIn(real, PASSWORD, '127.0.2.1')).statusCode, 429);
  });

  it('a flood of wrong passwords from many addresses costs a few scrypts a minute, and the person still signs in from their own device', async () => {
    const victim = await user('victim@example.com');
    // The person signed in from their browser before: it carries their device cookie.
    const first = await signIn(victim, PASSWORD, '127.0.5.1');
    assert.equal(first.statusCode, 200, first.body);
    const device = deviceCookie(first);
    assert.ok(device, 'a device cookie is set at sign-in');

    const before = passwordChecks.scrypt;
    // Wrong passwords from one address, then from 40 rotating ones.
    const codes: string[] = [];
    for (let i = 0; i < 10; i++) codes.push(code(await signIn(victim, `guess ${i}`, '127.0.3.1')));
    for (let i = 0; i < 40; i++) codes.push(code(await signIn(victim, `guess ${i}`, `127.0.4.${i + 1}`)));
    const checked = passwordChecks.scrypt - before;
    assert.ok(
      checked <= UNKNOWN_DEVICE_FAILURES_PER_EMAIL_PER_MINUTE,
      `${checked} password checks for the flood (codes: ${codes.join(' ')})`,
    );
    assert.equal(codes.at(-1), 'RATE-001', 'the flood is refused before any work');

    // The person, with their device cookie, from another address: signed in at once.
    const own = await signIn(victim, PASSWORD, '127.0.5.2', device);
    assert.equal(own.statusCode, 200, own.body);
    // From a device they never used, during the flood: refused like the flood (the price, documented).
    const elsewhere = await signIn(victim, PASSWORD, '127.0.5.3');
    assert.equal(elsewhere.statusCode, 429, elsewhere.body);
    assert.equal(body(elsewhere).error.code, 'RATE-001');
    // A made-up e-mail is refused the same way after as many failures: nothing told apart.
    const fakeCodes: string[] = [];
    for (let i = 0; i < 50; i++)
      fakeCodes.push(code(await signIn('nobody-here@example.com', `guess ${i}`, `127.0.8.${i + 1}`)));
    assert.equal(fakeCodes.at(-1), 'RATE-001');
    assert.equal(
      fakeCodes.indexOf('RATE-001'),
      codes.slice(10).indexOf('RATE-001') + 10 - codes.slice(0, 10).filter((c) => c === 'USER-002').length,
      `made-up: ${fakeCodes.join(' ')}`,
    );
  });

  it('another person’s device cookie trusts nobody else', async () => {
    const owner = await user('owner-of-device@example.com');
    const other = await user('other-person@example.com');
    const signed = await signIn(owner, PASSWORD, '127.0.9.1');
    const device = deviceCookie(signed);
    for (let i = 0; i < UNKNOWN_DEVICE_FAILURES_PER_EMAIL_PER_MINUTE; i++)
      await signIn(other, `guess ${i}`, `127.0.9.${i + 10}`);
    const res = await signIn(other, PASSWORD, '127.0.9.99', device);
    assert.equal(res.statusCode, 429, res.body);
    assert.equal(body(res).error.code, 'RATE-001');
  });

  it('the failure streak starts again when a lock ends: one more failure does not relock', async () => {
    const real = await user('relock@example.com');
    for (let i = 0; i < 5; i++) await signIn(real, `wrong ${i}`, '127.0.6.1');
    assert.equal((await signIn(real, PASSWORD, '127.0.6.1')).statusCode, 429);
    // The lock ends (CONSOLE_LOCK_MINUTES is at least a minute: moved into the past here).
    await svc.db.query("UPDATE users SET locked_until = now() - interval '1 second' WHERE email = $1", [
      real,
    ]);
    const once = await signIn(real, 'one more wrong one', '127.0.6.1');
    assert.equal(once.statusCode, 401, once.body);
    const { rows } = await svc.db.query('SELECT failed_sign_ins, locked_until FROM users WHERE email = $1', [
      real,
    ]);
    assert.deepEqual(rows[0], { failed_sign_ins: 1, locked_until: null });
    const res = await signIn(real, PASSWORD, '127.0.6.1');
    assert.equal(res.statusCode, 200, res.body);
  });

  it('a made-up e-mail locks and unlocks as a real one (the streak starts again after the lock)', async (t) => {
    // A guard with a one-second lock, so its end can be waited for.
    const guard = new SignInGuard(svc.db, {
      signInFailuresPerMinute: 1000,
      maxFailedSignIns: 3,
      lockMinutes: 1 / 60,
    });
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (err: { code?: string }) => err.code,
      );
    const fake = 'phantom@nowhere.example';
    // The clock moves only when told: the lock holds however slowly the machine runs the calls.
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    t.after(() => mock.timers.reset());
    for (let i = 0; i < 3; i++) assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-001');
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-002');
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.2')), 'USER-001', 'another address still tries');
    mock.timers.tick(1100);
    // Ended: one more failure is the first of a new streak, not a new lock.
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-001');
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-001');
  });
});
