import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import { revokeClient } from '../../src/domain/auth/revoke-client.ts';
import { body, call } from '../helpers.ts';
import { serviceWithAccount } from '../support/suite.ts';

describe('POST /oauth2/token under attack', () => {
  const s = serviceWithAccount();

  const token = (json: Record<string, string>, remoteAddress: string, url = '/oauth2/token') =>
    s.svc.api.inject({
      method: 'POST',
      url,
      remoteAddress,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ grant_type: 'client_credentials', ...json }),
    });
  const checks = () => s.svc.ctx.clientAuth.hashChecks;

  it('answers 429 with Retry-After once a client id has 10 failed attempts, without hashing past it', async () => {
    const b = await s.svc.newAccount();
    const before = checks();
    const codes: number[] = [];
    // From changing addresses, so only the client id's budget can stop them.
    for (let i = 0; i < 14; i++) {
      const res = await token({ client_id: b.clientId, client_secret: `wrong-${i}` }, `10.0.1.${i + 1}`);
      codes.push(res.statusCode);
    }
    assert.deepEqual(codes, [...Array(10).fill(401), ...Array(4).fill(429)]);
    assert.equal(checks() - before, 10);
    const limited = await token({ client_id: b.clientId, client_secret: 'wrong' }, '10.0.1.99');
    assert.equal(body(limited).error.code, 'RATE-001');
    assert.match(String(limited.headers['retry-after']), /^\d+$/);
  });

  it('answers 429 once an address has 20 failed attempts, whatever client ids it tries', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 22; i++) {
      const res = await token({ client_id: `cl_guess${i}`, client_secret: 'x' }, '10.0.2.1');
      codes.push(res.statusCode);
    }
    assert.deepEqual(codes, [...Array(20).fill(401), 429, 429]);
    const other = await token({ client_id: s.a.clientId, client_secret: s.a.clientSecret }, '10.0.2.2');
    assert.equal(other.statusCode, 200);
  });

  it('runs no scrypt for an unknown client id and answers exactly as for a wrong secret', async () => {
    const before = checks();
    const unknown = await token({ client_id: 'cl_nobody', client_secret: 'x' }, '10.0.3.1');
    assert.equal(checks(), before);
    const wrong = await token({ client_id: s.a.clientId, client_secret: 'x' }, '10.0.3.2');
    assert.equal(checks(), before + 1);
    assert.equal(unknown.statusCode, 401);
    assert.deepEqual(body(unknown), body(wrong));
  });

  it('remembers a verified secret: a busy client pays scrypt once, and keeps working while its id is flooded', async () => {
    const c = await s.svc.newAccount();
    const before = checks();
    for (let i = 0; i < 5; i++) {
      const res = await token({ client_id: c.clientId, client_secret: c.clientSecret }, '10.0.4.1');
      assert.equal(res.statusCode, 200);
    }
    assert.equal(checks() - before, 1);
    for (let i = 0; i < 12; i++)
      await token({ client_id: c.clientId, client_secret: `no-${i}` }, `10.0.4.${i + 2}`);
    const still = await token({ client_id: c.clientId, client_secret: c.clientSecret }, '10.0.4.1');
    assert.equal(still.statusCode, 200);
  });

  it('forgets a remembered secret when the client is revoked', async () => {
    const d = await s.svc.newAccount();
    const ok = await token({ client_id: d.clientId, client_secret: d.clientSecret }, '10.0.5.1');
    assert.equal(ok.statusCode, 200);
    // Revoked through the database alone, as another process would: the memory must not outlive it.
    await revokeClient(s.svc.db, d.clientId);
    const after = await token({ client_id: d.clientId, client_secret: d.clientSecret }, '10.0.5.1');
    assert.equal(after.statusCode, 401);
    assert.equal(body(after).error.code, 'invalid_client');
  });

  it('answers /v1/oauth2/token exactly as /oauth2/token', async () => {
    const v1 = await token(
      { client_id: s.a.clientId, client_secret: s.a.clientSecret },
      '10.0.6.1',
      '/v1/oauth2/token',
    );
    assert.equal(v1.statusCode, 200);
    assert.equal(v1.headers['cache-control'], 'no-store');
    const claims = decodeJwt(body(v1).access_token);
    assert.equal(claims.sub, s.a.clientId);
    const use = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}`, {
      auth: { authorization: `Bearer ${body(v1).access_token}` },
    });
    assert.equal(use.statusCode, 200);
    const basic = Buffer.from(`${s.a.clientId}:${s.a.clientSecret}`).toString('base64');
    const form = await s.svc.api.inject({
      method: 'POST',
      url: '/v1/oauth2/token',
      remoteAddress: '10.0.6.1',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      payload: 'grant_type=client_credentials&scope=contacts:read',
    });
    assert.equal(form.statusCode, 200);
    assert.equal(body(form).scope, 'contacts:read');
    const cases: Record<string, string>[] = [
      { client_id: s.a.clientId, client_secret: 'nope' },
      { grant_type: 'password' },
    ];
    for (const json of cases) {
      const plain = await token(json, '10.0.6.2');
      const under = await token(json, '10.0.6.3', '/v1/oauth2/token');
      assert.equal(under.statusCode, plain.statusCode);
      assert.deepEqual(body(under), body(plain));
    }
    const doc = body(await call(s.svc.api, 'GET', '/openapi.json'));
    assert.ok(doc.paths['/v1/oauth2/token']?.post, 'documented in OpenAPI');
    assert.deepEqual(
      Object.keys(doc.paths['/v1/oauth2/token'].post.responses),
      Object.keys(doc.paths['/oauth2/token'].post.responses),
    );
  });
});

describe('bearer tokens with an unknown kid', () => {
  const s = serviceWithAccount();

  it('still find a key another process rotated in', async () => {
    const { TokenService } = await import('../../src/domain/auth/tokens.ts');
    const other = new TokenService(s.svc.db, s.svc.config.publicUrl, 3600, s.svc.ctx.secrets);
    await other.rotate();
    const fresh = await other.issue({ id: s.a.clientId, name: 'x', accountId: s.a.accountId }, [
      'account:read',
    ]);
    const res = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}`, {
      auth: { authorization: `Bearer ${fresh}` },
    });
    assert.equal(res.statusCode, 200);
  });

  it('reload the signing keys from the database at most once, however many arrive', async () => {
    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('EdDSA');
    // Warm the key cache with a real token first.
    const real = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}`, { auth: s.a.auth });
    assert.equal(real.statusCode, 200);
    const loads = s.svc.ctx.tokens.keyLoads;
    for (let i = 0; i < 25; i++) {
      const forged = await new SignJWT({ accounts: [s.a.accountId], scope: 'account:read' })
        .setProtectedHeader({ alg: 'EdDSA', kid: randomUUID() })
        .setIssuer(s.svc.config.publicUrl)
        .setAudience('sparrow-api')
        .setSubject(s.a.clientId)
        .setIssuedAt()
        .setJti(String(i))
        .setExpirationTime('1h')
        .sign(privateKey);
      const res = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}`, {
        auth: { authorization: `Bearer ${forged}` },
      });
      assert.equal(res.statusCode, 401);
    }
    assert.ok(s.svc.ctx.tokens.keyLoads - loads <= 1, `${s.svc.ctx.tokens.keyLoads - loads} key loads`);
  });
});
