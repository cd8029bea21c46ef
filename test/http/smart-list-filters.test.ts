import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/**
 * A smart list's filter is closed: an unknown key (`listId` for `list`, a typo) is a 400 naming it,
 * and a filter naming no condition is refused (LIST-004). Before, `filter: {listId: …}` was stored
 * as a filter of no condition: a list of every contact, sendable without `filters: {all: true}`.
 */
describe('smart list filters', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const lists = (rest = '') => `/v1/accounts/${a.accountId}/lists${rest}`;
  const create = (filter: unknown) =>
    call(svc.api, 'POST', lists(), { auth: a.auth, json: { name: `L${seq++}`, filter } });
  const refused = (res: Awaited<ReturnType<typeof call>>, code: string, message: RegExp) => {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(body(res).error.code, code, res.body);
    assert.match(body(res).error.description, message, res.body);
  };
  let staticList: string;

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 100 });
    const res = await call(svc.api, 'POST', lists(), { auth: a.auth, json: { name: 'static' } });
    staticList = body(res).data.id;
    for (let i = 0; i < 3; i++)
      await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
        auth: a.auth,
        json: { mobile: `+1201555${String(1000 + i)}`, firstName: `C${i}` },
      });
  });
  after(() => svc.close());

  it('refuses `filter.listId` (the wrong key for `list`) with a 400 naming it; nothing is made', async () => {
    refused(await create({ listId: staticList }), 'VAL-001', /filter\.listId is not a known property/);
    const all = await call(svc.api, 'GET', lists(), { auth: a.auth });
    assert.equal(body(all).pagination.totalCount, 1, 'only the static list exists');
  });

  it('refuses other unknown keys, at the filter and in its conditions, on create and update', async () => {
    refused(await create({ tags: ['vip'] }), 'VAL-001', /filter\.tags is not a known property/);
    refused(await create({ optIn: true, all: true }), 'VAL-001', /filter\.all is not a known property/);
    refused(
      await create({ attributes: [{ attribute: 'x', comparator: '=', value: ['1'], name: 'y' }] }),
      'VAL-001',
      /filter\.attributes\[0\]\.name is not a known property/,
    );
    const made = await create({ optIn: true });
    assert.equal(made.statusCode, 201, made.body);
    const put = await call(svc.api, 'PUT', lists(`/${body(made).data.id}`), {
      auth: a.auth,
      json: { filter: { listId: staticList } },
    });
    refused(put, 'VAL-001', /filter\.listId is not a known property/);
  });

  it('refuses a filter that names no condition (it would hold every contact) with LIST-004', async () => {
    for (const filter of [
      {},
      { q: '  ' },
      { attributes: [] },
      { valid: true, invalid: true },
      { optIn: false },
    ])
      refused(await create(filter), 'LIST-004', /names no condition/);
    const made = await create({ blocked: true });
    const put = await call(svc.api, 'PUT', lists(`/${body(made).data.id}`), {
      auth: a.auth,
      json: { filter: {} },
    });
    refused(put, 'LIST-004', /names no condition/);
  });

  it('keeps every published key of a smart list filter', async () => {
    const filter = {
      q: 'C',
      attributes: [{ attribute: 'plan', comparator: '!=', value: ['gold'] }],
      list: staticList,
      valid: true,
      invalid: false,
      blocked: false,
      unblocked: true,
      optIn: false,
    };
    const res = await create(filter);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(body(res).data.filter, filter);
    const one = await create({ unblocked: true });
    assert.equal(one.statusCode, 201, one.body);
    assert.equal(body(one).data.size, 3);
  });

  it('reads a smart list stored before these checks, with no condition, as holding nobody: a send to it reaches no one', async () => {
    const made = await create({ optIn: true });
    const id = body(made).data.id;
    // As the old code stored `filter: {listId: …}`: the unknown key kept, no condition.
    await svc.db.query('UPDATE lists SET filter = $2 WHERE id = $1', [id, { listId: staticList }]);
    const list = await call(svc.api, 'GET', lists(`/${id}`), { auth: a.auth });
    assert.equal(body(list).data.size, 0, list.body);
    const sent = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { text: 'To everyone?', filters: { listId: id } },
    });
    const msgs = await svc.db.query('SELECT count(*)::int AS n FROM messages WHERE account_id = $1', [
      a.accountId,
    ]);
    assert.equal(msgs.rows[0].n, 0, `nothing queued (the send answered ${sent.statusCode} ${sent.body})`);
  });
});
