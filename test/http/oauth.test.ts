import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader, SignJWT, UnsecuredJWT } from 'jose';
import { revokeClient } from '../../src/domain/auth/revoke-client.ts';
import { body, call } from '../helpers.ts';
import { serviceWithAccount } from '../support/suite.ts';

describe('POST /oauth2/token', () => {
  const s = serviceWithAccount();

  const tokenFor = (json: unknown) => call(s.svc.api, 'POST', '/oauth2/token', { json });

  it('issues a bearer JWT for the JSON client-credentials body, with no-store', async () => {
    const res = await tokenFor({
      grant_type: 'client_credentials',
      client_id: s.a.clientId,
      client_secret: s.a.clientSecret,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const b = body(res);
    assert.equal(b.token_type, 'bearer');
    assert.equal(b.expires_in, 3600);
    assert.match(b.scope, /messages:send/);
    const header = decodeProtectedHeader(b.access_token);
    assert.equal(header.alg, 'EdDSA');
    assert.ok(header.kid);
    const claims = decodeJwt(b.access_token);
    assert.equal(claims.sub, s.a.clientId);
    assert.deepEqual(claims.accounts, [s.a.accountId]);
    assert.equal(claims.aud, 'sparrow-api');
    assert.equal(claims.iss, s.svc.config.publicUrl);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 3600);
    assert.ok(claims.jti);
    const use = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}`, {
      auth: { authorization: `Bearer ${b.access_token}` },
    });
    assert.equal(use.statusCode, 200);
  });

  it('accepts a form-encoded body', async () => {
    const res = await s.svc.api.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: s.a.clientId,
        client_secret: s.a.clientSecret,
      }).toString(),
    });
    assert.equal(res.statusCode, 200);
    assert.equal(body(res).token_type, 'bearer');
  });

  it('accepts HTTP Basic client authentication (RFC 6749 §2.3.1)', async () => {
    const basic = Buffer.from(
      `${encodeURIComponent(s.a.clientId)}:${encodeURIComponent(s.a.clientSecret)}`,
    ).toString('base64');
    const res = await s.svc.api.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(res.statusCode, 200);
  });

  it('narrows the token to a requested subset of scopes and refuses more than granted', async () => {
    const narrow = await tokenFor({
      grant_type: 'client_credentials',
      client_id: s.a.clientId,
      client_secret: s.a.clientSecret,
      scope: 'contacts:read',
    });
    assert.equal(body(narrow).scope, 'contacts:read');
    const res = await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}`, {
      auth: { authorization: `Bearer ${body(narrow).access_token}` },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(body(res).error.code, 'AUTH-004');
    assert.match(String(res.headers['www-authenticate']), /insufficient_scope/);
    const bad = await tokenFor({
      grant_type: 'client_credentials',
      client_id: s.a.clientId,
      client_secret: s.a.clientSecret,
      scope: 'root:everything',
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(body(bad).error.code, 'invalid_scope');
  });

  it('answers 401 invalid_client for a wrong secret and for an unknown client', async () => {
    for (const json of [
      { grant_type: 'client_credentials', client_id: s.a.clientId, client_secret: 'wrong' },
      { grant_type: 'client_credentials', client_id: 'cl_nobody', client_secret: 'x' },
      { grant_type: 'client_credentials' },
    ]) {
      const res = await tokenFor(json);
      assert.equal(res.statusCode, 401);
      const b = body(res);
      assert.equal(b.success, false);
      assert.equal(b.error.code, 'invalid_client');
      assert.equal(b.error.message, b.error.description);
    }
  });

  it('answers 400 for a missing or unsupported grant_type', async () => {
    const missing = await tokenFor({ client_id: s.a.clientId, client_secret: s.a.clientSecret });
    assert.equal(missing.statusCode, 400);
    assert.equal(body(missing).error.code, 'invalid_request');
    const other = await tokenFor({
      grant_type: 'password',
      client_id: s.a.clientId,
      client_secret: s.a.clientSecret,
    });
    assert.equal(other.statusCode, 400);
    assert.equal(body(other).error.code, 'unsupported_grant_type');
  });

  it('answers 400 for malformed JSON and 415 for an unsupported content type', async () => {
    const bad = await call(s.svc.api, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":',
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(body(bad).error.code, 'VAL-002');
    const xml = await call(s.svc.api, 'POST', '/oauth2/token', {
      headers: { 'content-type': 'application/xml' },
      payload: '<x/>',
    });
    assert.equal(xml.statusCode, 415);
    assert.equal(body(xml).error.code, 'VAL-004');
  });
});

describe('bearer tokens on API calls', () => {
  const s = serviceWithAccount();

  const get = (authorization: string) =>
    call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}`, { auth: { authorization } });

  function expectInvalid(res: Awaited<ReturnType<typeof get>>) {
    assert.equal(res.statusCode, 401);
    assert.equal(body(res).error.code, 'AUTH-002');
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
  }

  it('refuses an unsigned (alg: none) token', async () => {
    const claims = decodeJwt(s.a.token);
    const none = new UnsecuredJWT({ ...claims }).encode();
    expectInvalid(await get(`Bearer ${none}`));
  });

  it('refuses a token whose payload was changed', async () => {
    const [h, , sig] = s.a.token.split('.');
    const payload = { ...decodeJwt(s.a.token), accounts: ['00000000-0000-7000-8000-000000000000'] };
    expectInvalid(
      await get(`Bearer ${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`),
    );
  });

  it('refuses an expired token, a wrong-audience token and one signed by another key', async () => {
    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('EdDSA');
    const kid = decodeProtectedHeader(s.a.token).kid!;
    const base = { accounts: [s.a.accountId], scope: 'account:read' };
    const foreign = await new SignJWT(base)
      .setProtectedHeader({ alg: 'EdDSA', kid })
      .setIssuer(s.svc.config.publicUrl)
      .setAudience('sparrow-api')
      .setSubject(s.a.clientId)
      .setIssuedAt()
      .setJti('x')
      .setExpirationTime('1h')
      .sign(privateKey);
    expectInvalid(await get(`Bearer ${foreign}`));
    // Tokens signed with our own key but wrong claims: sign through the service's key store.
    const row = (await s.svc.db.query('SELECT private_jwk FROM signing_keys WHERE kid = $1', [kid])).rows[0];
    const { importJWK } = await import('jose');
    const ours = await importJWK(row.private_jwk, 'EdDSA');
    const sign = (aud: string, exp: number) =>
      new SignJWT(base)
        .setProtectedHeader({ alg: 'EdDSA', kid })
        .setIssuer(s.svc.config.publicUrl)
        .setAudience(aud)
        .setSubject(s.a.clientId)
        .setIssuedAt(exp - 3600)
        .setJti(String(exp))
        .setExpirationTime(exp)
        .sign(ours);
    const now = Math.floor(Date.now() / 1000);
    expectInvalid(await get(`Bearer ${await sign('someone-else', now + 600)}`));
    expectInvalid(await get(`Bearer ${await sign('sparrow-api', now - 120)}`));
    assert.equal((await get(`Bearer ${await sign('sparrow-api', now + 600)}`)).statusCode, 200);
  });

  it('refuses a malformed Authorization header with 401 and a Bearer challenge', async () => {
    const res = await get('Token abc');
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['www-authenticate']), /^Bearer realm=/);
  });

  it("stops honouring a revoked client's tokens", async () => {
    const b = await s.svc.newAccount();
    const before = await call(s.svc.api, 'GET', `/v1/accounts/${b.accountId}`, { auth: b.auth });
    assert.equal(before.statusCode, 200);
    await revokeClient(s.svc.db, b.clientId, s.svc.ctx.tokens);
    expectInvalid(await call(s.svc.api, 'GET', `/v1/accounts/${b.accountId}`, { auth: b.auth }));
    const token = await call(s.svc.api, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: b.clientId, client_secret: b.clientSecret },
    });
    assert.equal(token.statusCode, 401);
  });

  it('keeps verifying tokens of the previous key after a rotation', async () => {
    await s.svc.ctx.tokens.rotate();
    assert.equal((await get(`Bearer ${s.a.token}`)).statusCode, 200);
  });
});
