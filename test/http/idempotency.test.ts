import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('Idempotency-Key on POST', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(() => svc.close());

  const create = (who: TestAccount, key: string, json: unknown) =>
    call(svc.api, 'POST', `/v1/accounts/${who.accountId}/contacts`, {
      auth: who.auth,
      json,
      headers: { 'idempotency-key': key },
    });

  it('replays the stored response for the same key and body, creating one record', async () => {
    const json = { firstName: 'Ida', mobile: '+12025550111' };
    const first = await create(a, 'key-1', json);
    assert.equal(first.statusCode, 201);
    const again = await create(a, 'key-1', json);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(body(again).data[0].id, body(first).data[0].id);
    const list = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts?mobile=2025550111`, {
      auth: a.auth,
    });
    assert.equal(body(list).pagination.totalCount, 1);
  });

  it('answers 422 for the same key with a different body', async () => {
    assert.equal((await create(a, 'key-2', { mobile: '+12025550112' })).statusCode, 201);
    const res = await create(a, 'key-2', { mobile: '+12025550113' });
    assert.equal(res.statusCode, 422);
    assert.equal(body(res).error.code, 'IDEM-002');
  });

  it('never runs two concurrent requests with one key twice', async () => {
    const [one, two] = await Promise.all([
      create(a, 'key-3', { mobile: '+12025550114' }),
      create(a, 'key-3', { mobile: '+12025550114' }),
    ]);
    const codes = [one.statusCode, two.statusCode].sort();
    // Either the second arrived while the first ran (409) or after it finished (a replay of 201).
    assert.ok(codes[0] === 201 && (codes[1] === 201 || codes[1] === 409), `got ${codes}`);
    const contacts = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts?mobile=2025550114`, {
      auth: a.auth,
    });
    assert.equal(body(contacts).pagination.totalCount, 1);
  });

  it('answers 409 IDEM-003 for a key whose first request has not completed', async () => {
    const json = { mobile: '+12025550116' };
    const first = await create(a, 'key-5', json);
    assert.equal(first.statusCode, 201);
    await svc.db.query(`UPDATE idempotency_keys SET completed_at = NULL WHERE key = 'key-5'`);
    const res = await create(a, 'key-5', json);
    assert.equal(res.statusCode, 409);
    assert.equal(body(res).error.code, 'IDEM-003');
  });

  it('keeps keys per client: another account may use the same key', async () => {
    const res = await create(b, 'key-1', { firstName: 'Ida', mobile: '+12025550111' });
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['idempotent-replayed'], undefined);
  });

  it('treats a key older than 24 hours as new', async () => {
    const json = { mobile: '+12025550117' };
    assert.equal((await create(a, 'key-6', json)).statusCode, 201);
    await svc.db.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'key-6'`,
    );
    const res = await create(a, 'key-6', json);
    assert.equal(res.statusCode, 409);
    assert.equal(body(res).error.code, 'CONT-003');
  });

  it('rejects an over-long key with 400', async () => {
    const res = await create(a, 'k'.repeat(256), { mobile: '+12025550118' });
    assert.equal(res.statusCode, 400);
    assert.equal(body(res).error.code, 'IDEM-001');
  });

  it('stores a 4xx answer and replays it for the same request', async () => {
    const bad = await create(a, 'key-7', { mobile: 'not a number' });
    assert.equal(bad.statusCode, 400);
    const replay = await create(a, 'key-7', { mobile: 'not a number' });
    assert.equal(replay.statusCode, 400);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
  });
});
