/**
 * Console sign-in abuse (issue 28): made-up e-mails cost no scrypt, a stranger cannot lock the
 * real user out from the addresses they have not used, a lock's streak starts again once it ends,
 * and a locked e-mail answers exactly as a locked made-up one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureUser } from '../../src/domain/users/members.ts';
import { passwordChecks } from '../../src/domain/users/passwords.ts';
import { SignInGuard } from '../../src/domain/users/sign-in-guard.ts';
import { body, startTestService, type TestService } from '../helpers.ts';

const PASSWORD = 'the real user’s password';

describe('console sign-in abuse costs the abuser, not the victim', () => {
  let svc: TestService;
  let accountId: string;

  function signIn(email: string, password: string, remoteAddress: string) {
    return svc.api.inject({
      method: 'POST',
      url: '/console/api/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email, password }),
      remoteAddress,
    });
  }

  async function user(email: string) {
    await ensureUser(svc.db, accountId, { email, password: PASSWORD, role: 'Administrator' }, { id: 'test' });
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

  it('a stranger cannot lock the real user out: from an address with no failures the right password signs in', async () => {
    const victim = await user('victim@example.com');
    // Wrong passwords from one address, then one each from 30 rotating addresses.
    for (let i = 0; i < 10; i++) await signIn(victim, `guess ${i}`, '127.0.3.1');
    for (let i = 0; i < 30; i++) {
      const res = await signIn(victim, `guess from ${i}`, `127.0.4.${i + 1}`);
      assert.equal(res.statusCode, 401, `a new address gets its one attempt: ${res.body}`);
      const again = await signIn(victim, `guess again ${i}`, `127.0.4.${i + 1}`);
      assert.equal(again.statusCode, 429, 'and is locked out of that e-mail after it');
      assert.equal(body(again).error.code, 'USER-002');
    }
    const locked = await signIn(victim, PASSWORD, '127.0.3.1');
    assert.equal(body(locked).error.code, 'USER-002');
    const own = await signIn(victim, PASSWORD, '127.0.5.1');
    assert.equal(own.statusCode, 200, own.body);
    // The success ended the lock: the attacker's address is back to a fresh streak.
    assert.equal((await signIn(victim, 'guess', '127.0.3.1')).statusCode, 401);
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

  it('a made-up e-mail locks and unlocks as a real one (the streak starts again after the lock)', async () => {
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
    for (let i = 0; i < 3; i++) assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-001');
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-002');
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.2')), 'USER-001', 'another address still tries');
    await sleep(1100);
    // Ended: one more failure is the first of a new streak, not a new lock.
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-001');
    assert.equal(await code(guard.verify(fake, 'x', '127.0.7.1')), 'USER-001');
  });
});
