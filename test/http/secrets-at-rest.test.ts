import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ConfigError } from '../../src/config.ts';
import { secretBoxFor } from '../../src/context.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { withTx } from '../../src/db/client.ts';
import { TokenService } from '../../src/domain/auth/tokens.ts';
import { emitEvent } from '../../src/domain/events/emit.ts';
import { sealSecretsAtRest } from '../../src/domain/secrets/seal-secrets-at-rest.ts';
import { webhookDelivery } from '../../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../../src/workers/webhook-fanout.ts';
import { body, call, eventually, startTestService, type TestService } from '../helpers.ts';

/** A receiver that records every request. */
async function startReceiver() {
  const received: { raw: string; headers: Record<string, string> }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        raw: Buffer.concat(chunks).toString(),
        headers: {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        },
      });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Every stored secret column as text, to search for plaintext in. */
async function storedText(svc: TestService): Promise<string> {
  const keys = await svc.db.query('SELECT private_jwk::text AS v FROM signing_keys');
  const hooks = await svc.db.query(
    "SELECT secret || ' ' || coalesce(previous_secret, '') AS v FROM webhooks",
  );
  return [...keys.rows, ...hooks.rows].map((r) => r.v).join('\n');
}

async function privateD(svc: TestService, box = svc.ctx.secrets): Promise<string[]> {
  const { rows } = await svc.db.query('SELECT private_jwk FROM signing_keys');
  return rows.map((r) =>
    typeof r.private_jwk === 'string' ? JSON.parse(box.open(r.private_jwk)).d : r.private_jwk.d,
  );
}

async function subscribeAndRotate(
  svc: TestService,
  account: { accountId: string; auth: object },
  url: string,
) {
  const created = await call(svc.api, 'POST', `/v1/accounts/${account.accountId}/webhooks`, {
    auth: account.auth as Record<string, string>,
    json: { url, eventTypes: ['contact-created'] },
  });
  assert.equal(created.statusCode, 200, created.body);
  const hook = body(created).data;
  const rotated = await call(
    svc.api,
    'POST',
    `/v1/accounts/${account.accountId}/webhooks/${hook.id}/rotate-secret`,
    { auth: account.auth as Record<string, string> },
  );
  return { id: hook.id as string, first: hook.secret as string, second: body(rotated).data.secret as string };
}

describe('secrets at rest with SECRETS_KEY', () => {
  const key = randomBytes(32);
  let svc: TestService;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    svc = await startTestService({ secretsKey: key });
    rx = await startReceiver();
    svc.startWorkers([
      webhookFanOut({ idleMs: 20 }),
      webhookDelivery({ policy: { schedule: [0, 50], jitter: 0 }, idleMs: 30, log: () => {} }),
    ]);
  });
  after(async () => {
    await svc.close();
    await rx.close();
  });

  it('stores the signing key and both webhook secrets sealed, and everything still verifies', async () => {
    const a = await svc.newAccount();
    const me = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}`, { auth: a.auth });
    assert.equal(me.statusCode, 200);
    const hook = await subscribeAndRotate(svc, a, rx.url);
    assert.match(hook.first, /^whsec_/);
    assert.match(hook.second, /^whsec_/);

    const stored = await storedText(svc);
    for (const plain of [
      hook.first,
      hook.second,
      hook.first.slice(6),
      hook.second.slice(6),
      ...(await privateD(svc)),
    ])
      assert.ok(!stored.includes(plain), 'a secret is stored in plain text');
    const row = (await svc.db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]))
      .rows[0];
    assert.match(row.secret, /^enc:v1:[\w-]+:[\w-]+:[\w-]+$/);
    assert.match(row.previous_secret, /^enc:v1:/);
    const keyRow = (
      await svc.db.query("SELECT jsonb_typeof(private_jwk) AS t, private_jwk #>> '{}' AS v FROM signing_keys")
    ).rows;
    assert.ok(keyRow.every((r) => r.t === 'string' && r.v.startsWith('enc:v1:')));

    // A token issued with the sealed key verifies through the token endpoint and a fresh service.
    const tok = await call(svc.api, 'POST', '/oauth2/token', {
      json: { grant_type: 'client_credentials', client_id: a.clientId, client_secret: a.clientSecret },
    });
    assert.equal(tok.statusCode, 200);
    const fresh = new TokenService(svc.db, svc.config.publicUrl, 3600, svc.ctx.secrets);
    assert.ok(await fresh.verify(body(tok).access_token));

    await withTx(svc.db, (tx) => emitEvent(tx, a.accountId, 'contact-created', { contact: { id: 'c1' } }));
    const [got] = await eventually(async () => rx.received.length > 0 && rx.received);
    assert.equal(got.headers['webhook-signature'].split(' ').length, 2);
    assert.ok(new StandardWebhook(hook.second).verify(got.raw, got.headers));
    assert.ok(new StandardWebhook(hook.first).verify(got.raw, got.headers));
  });
});

describe('secrets at rest without SECRETS_KEY, then sealed, then rotated', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('stores them as before without a key, and seals them in place once one is given', async () => {
    const a = await svc.newAccount();
    const hook = await subscribeAndRotate(svc, a, 'http://127.0.0.1:9/hook');
    const stored = await storedText(svc);
    assert.ok(stored.includes(hook.first) && stored.includes(hook.second), 'plain text without a key');
    assert.equal(
      await svc.db
        .query('SELECT 1 FROM signing_keys WHERE jsonb_typeof(private_jwk) = $1', ['object'])
        .then((r) => r.rowCount),
      1,
    );
    const [d] = await privateD(svc);

    // Two processes starting with the key at once: one seals, the other finds nothing to do.
    const key = randomBytes(32);
    const box = secretBoxFor({ secretsKey: key });
    const reports = await Promise.all([sealSecretsAtRest(svc.db, box), sealSecretsAtRest(svc.db, box)]);
    assert.deepEqual(reports.map((r) => r.signingKeys + r.webhooks).sort(), [0, 2]);
    assert.deepEqual(await sealSecretsAtRest(svc.db, box), { signingKeys: 0, webhooks: 0 });
    const sealed = await storedText(svc);
    for (const plain of [hook.first, hook.second, d]) assert.ok(!sealed.includes(plain));
    const row = (await svc.db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id]))
      .rows[0];
    assert.equal(box.open(row.secret), hook.second);
    assert.equal(box.open(row.previous_secret), hook.first);

    // The token issued before sealing verifies with the sealed key.
    const withKey = new TokenService(svc.db, svc.config.publicUrl, 3600, box);
    assert.ok(await withKey.verify(a.token));
    // A process without the key cannot open them and says which setting is missing.
    await assert.rejects(sealSecretsAtRest(svc.db, createSecretBox()), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /SECRETS_KEY/);
      return true;
    });

    // Rotation: the new key with the old one as SECRETS_KEY_PREVIOUS re-seals every row.
    const next = randomBytes(32);
    const rotating = secretBoxFor({ secretsKey: next, secretsKeyPrevious: key });
    assert.deepEqual(await sealSecretsAtRest(svc.db, rotating), { signingKeys: 1, webhooks: 1 });
    const onlyNext = createSecretBox(next);
    const after = (
      await svc.db.query('SELECT secret, previous_secret FROM webhooks WHERE id = $1', [hook.id])
    ).rows[0];
    assert.equal(onlyNext.open(after.secret), hook.second);
    assert.equal(onlyNext.open(after.previous_secret), hook.first);
    assert.throws(() => box.open(after.secret));
    assert.ok(await new TokenService(svc.db, svc.config.publicUrl, 3600, onlyNext).verify(a.token));

    // And back to plain text: no key, the last one as SECRETS_KEY_PREVIOUS.
    assert.deepEqual(await sealSecretsAtRest(svc.db, secretBoxFor({ secretsKeyPrevious: next })), {
      signingKeys: 1,
      webhooks: 1,
    });
    assert.ok((await storedText(svc)).includes(hook.second));
    assert.ok(await new TokenService(svc.db, svc.config.publicUrl, 3600).verify(a.token));
  });
});
