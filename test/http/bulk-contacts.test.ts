import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '../../src/domain/auth/create-client.ts';
import { runChunks } from '../../src/domain/jobs/run-chunks.ts';
import { CONTACT_JOBS, runContactJobChunk } from '../../src/domain/jobs/run-contact-jobs.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { workerProcesses } from '../support/worker-processes.ts';

let seq = 0;
const nextMobile = () => `+1203${String(5_000_000 + seq++).padStart(7, '0')}`;
const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;

/** Uploads `n` contacts (CSV) tagged as given; answers their ids in creation order. */
async function makeContacts(svc: TestService, acc: TestAccount, n: number, tag = 'base'): Promise<string[]> {
  const rows = Array.from({ length: n }, (_, i) => `US,P${i},${nextMobile()},${tag}`).join('\n');
  const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
    headers: { ...acc.auth, 'content-type': 'text/csv' },
    payload: `country,firstName,mobile,tags\n${rows}\n`,
  });
  assert.equal(body(res).data.inserted, n, res.body);
  const { rows: ids } = await svc.db.query<{ id: string }>(
    'SELECT id FROM contacts WHERE account_id = $1 ORDER BY id',
    [acc.accountId],
  );
  return ids.map((r) => r.id);
}

/** The contact ids named by the account's events of `type` since `since` (an event id), in order. */
async function eventContacts(
  svc: TestService,
  acc: TestAccount,
  type: string,
  since = '0',
): Promise<string[]> {
  const { rows } = await svc.db.query<{ id: string }>(
    `SELECT coalesce(data->'contact'->>'id', data->>'id') AS id FROM events
     WHERE account_id = $1 AND type = $2 AND id::text > $3 ORDER BY id`,
    [acc.accountId, type, since],
  );
  return rows.map((r) => r.id);
}

async function lastEventId(svc: TestService, acc: TestAccount): Promise<string> {
  const { rows } = await svc.db.query<{ id: string }>(
    'SELECT coalesce(max(id::text), $2) AS id FROM events WHERE account_id = $1',
    [acc.accountId, '0'],
  );
  return rows[0].id;
}

describe('POST /v1/accounts/:accountId/bulk/contacts', () => {
  let svc: TestService;
  const bulk = (acc: TestAccount, json: unknown, auth = acc.auth) =>
    call(svc.api, 'POST', `${base(acc)}/bulk/contacts`, { auth, json });
  const job = async (acc: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `${base(acc)}/jobs/${id}`, { auth: acc.auth })).data;
  /** Runs the worker's chunks until no job is open. */
  const work = () => runChunks(svc.db, svc.ctx.log, CONTACT_JOBS, 1000, 1000);
  const contactsWhere = async (acc: TestAccount, where: string) => {
    const { rows } = await svc.db.query<{ id: string }>(
      `SELECT id FROM contacts c WHERE account_id = $1 AND ${where} ORDER BY id`,
      [acc.accountId],
    );
    return rows.map((r) => r.id);
  };
  const newList = async (acc: TestAccount, json: object = { name: `L${seq++}` }) => {
    const res = await call(svc.api, 'POST', `${base(acc)}/lists`, { auth: acc.auth, json });
    assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
    return body(res).data.id as string;
  };

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('answers 401 without a token, 403 without contacts:write, and 403 for a list action without lists:write', async () => {
    const acc = await svc.newAccount();
    const ids = await makeContacts(svc, acc, 1);
    const json = { action: 'block', selector: { ids } };
    const anon = await call(svc.api, 'POST', `${base(acc)}/bulk/contacts`, { json });
    assert.equal(anon.statusCode, 401);
    const reader = await svc.newAccount({ scopes: ['contacts:read', 'messages:read'] });
    const r1 = await bulk(reader, json);
    assert.equal(r1.statusCode, 403, r1.body);
    assert.equal(body(r1).error.code, 'AUTH-004');
    const writer = await svc.newAccount({ scopes: ['contacts:write', 'contacts:read'] });
    const list = await newList(acc);
    const r2 = await bulk(writer, {
      action: 'addToList',
      listId: list,
      selector: { filters: { all: true } },
    });
    assert.equal(r2.statusCode, 403, r2.body);
    assert.match(body(r2).error.message, /lists:write/);
    assert.deepEqual(await contactsWhere(acc, 'blocked_at IS NOT NULL'), []);
  });

  it('refuses malformed requests with 400 and creates no job', async () => {
    const acc = await svc.newAccount();
    const ids = await makeContacts(svc, acc, 2);
    const smart = await newList(acc, { name: 'Smart', filter: { q: 'P' } });
    const tooMany = Array.from({ length: 10_001 }, () => ids[0]);
    const cases: [unknown, string?][] = [
      [{ action: 'explode', selector: { ids } }],
      [{ action: 'block' }],
      [{ action: 'block', selector: {} }, 'VAL-001'],
      [{ action: 'block', selector: { ids, listId: smart } }, 'VAL-001'],
      [{ action: 'block', selector: { ids: tooMany } }],
      [{ action: 'block', selector: { ids: [] } }],
      [{ action: 'block', selector: { ids: ['not-an-id'] } }, 'VAL-001'],
      [{ action: 'block', selector: { ids }, extra: 1 }],
      [{ action: 'block', selector: { ids, more: 1 } }],
      [{ action: 'block', selector: { filters: {} } }, 'MSG-006'],
      [{ action: 'block', selector: { filters: { colour: 'red' } } }],
      [{ action: 'block', selector: { filters: { all: true, tags: ['x'] } } }, 'VAL-001'],
      [{ action: 'tag', selector: { ids } }, 'JOB-002'],
      [{ action: 'tag', selector: { ids }, tags: [] }],
      [{ action: 'tag', selector: { ids }, tags: ['  '] }, 'JOB-002'],
      [{ action: 'addToList', selector: { ids } }, 'JOB-002'],
      [{ action: 'block', selector: { ids: [{ id: ids[0] }] } }],
    ];
    const smartTarget = await bulk(acc, { action: 'addToList', selector: { ids }, listId: smart });
    assert.equal(smartTarget.statusCode, 409, smartTarget.body);
    assert.equal(body(smartTarget).error.code, 'LIST-002');
    for (const [json, code] of cases) {
      const res = await bulk(acc, json);
      assert.equal(res.statusCode, 400, `${JSON.stringify(json).slice(0, 100)}: ${res.body}`);
      if (code) assert.equal(body(res).error.code, code, JSON.stringify(json).slice(0, 100));
    }
    const res = await call(svc.api, 'POST', `${base(acc)}/bulk/contacts`, {
      auth: acc.auth,
      jsonText: '{"action": "block", "selector": ',
    });
    assert.equal(res.statusCode, 400);
    const jobs = body(await call(svc.api, 'GET', `${base(acc)}/jobs?kind=contacts`, { auth: acc.auth }));
    assert.equal(jobs.pagination.totalCount, 0);
  });

  it('takes 10,000 ids (the cap), and lists the unknown ones in invalid', async () => {
    const acc = await svc.newAccount();
    const ids = await makeContacts(svc, acc, 3);
    const unknown = Array.from(
      { length: 10_000 - ids.length },
      (_, i) => `01937c1e-0000-7000-8000-${String(i).padStart(12, '0')}`,
    );
    const res = await bulk(acc, { action: 'block', selector: { ids: [...ids, ...unknown] } });
    assert.equal(res.statusCode, 202, res.body.slice(0, 300));
    const j = body(res).data;
    assert.equal(j.progress.total, 3);
    assert.equal(j.invalid.length, unknown.length);
    await work();
    assert.deepEqual(await contactsWhere(acc, 'blocked_at IS NOT NULL'), ids);
  });

  it("answers 404 LIST-001 for another account's list, as the selector or as the target", async () => {
    const acc = await svc.newAccount();
    const other = await svc.newAccount();
    const ids = await makeContacts(svc, acc, 2);
    const theirs = await newList(other);
    for (const json of [
      { action: 'block', selector: { listId: theirs } },
      { action: 'block', selector: { filters: { listId: theirs } } },
      { action: 'addToList', listId: theirs, selector: { ids } },
      { action: 'removeFromList', listId: 'nope', selector: { ids } },
    ]) {
      const res = await bulk(acc, json);
      assert.equal(res.statusCode, 404, `${JSON.stringify(json)}: ${res.body}`);
      assert.equal(body(res).error.code, 'LIST-001');
    }
    const { rows } = await svc.db.query('SELECT count(*)::int AS n FROM list_members WHERE list_id = $1', [
      theirs,
    ]);
    assert.equal(rows[0].n, 0);
  });

  it('blocks exactly the contacts named by id, one contact-updated event each, in the shape PUT …/contacts gives', async () => {
    const acc = await svc.newAccount();
    const ids = await makeContacts(svc, acc, 6);
    const other = await svc.newAccount();
    const [foreign] = await makeContacts(svc, other, 1);
    const chosen = [ids[0], ids[2], ids[4]];
    const since = await lastEventId(svc, acc);
    const res = await bulk(acc, { action: 'block', selector: { ids: [...chosen, chosen[0], foreign] } });
    assert.equal(res.statusCode, 202, res.body);
    const started = body(res).data;
    assert.equal(started.kind, 'contacts');
    assert.equal(started.action, 'block');
    assert.equal(started.status, 'queued');
    assert.deepEqual(started.progress, { total: 3, done: 0, failed: 0, changed: 0 });
    assert.deepEqual(started.invalid, [
      { id: foreign, error: { code: 'CONT-002', description: 'Contact not found.' } },
    ]);
    for (const [k, v] of Object.entries(started)) assert.notEqual(v, null, k);

    await work();
    const done = await job(acc, started.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.progress, { total: 3, done: 3, failed: 0, changed: 3 });
    assert.deepEqual(await contactsWhere(acc, 'blocked_at IS NOT NULL'), [...chosen].sort());
    assert.deepEqual(
      await contactsWhere(other, 'blocked_at IS NOT NULL'),
      [],
      "another account's contact is untouched",
    );
    assert.deepEqual((await eventContacts(svc, acc, 'contact-updated', since)).sort(), [...chosen].sort());

    // The single edit gives the same event payload.
    const put = await call(svc.api, 'PUT', `${base(acc)}/contacts/${ids[1]}`, {
      auth: acc.auth,
      json: { blocked: true },
    });
    assert.equal(put.statusCode, 200, put.body);
    const { rows } = await svc.db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE account_id = $1 AND type = 'contact-updated' AND id::text > $2 ORDER BY id`,
      [acc.accountId, since],
    );
    const keys = rows.map((r) => Object.keys(r.data).sort().join(','));
    assert.equal(new Set(keys).size, 1, `one payload shape: ${[...new Set(keys)].join(' | ')}`);

    // Again: nothing left to change, so no event.
    const again = body(await bulk(acc, { action: 'block', selector: { ids: chosen } })).data;
    const before = await lastEventId(svc, acc);
    await work();
    assert.deepEqual((await job(acc, again.id)).progress, { total: 3, done: 3, failed: 0, changed: 0 });
    assert.deepEqual(await eventContacts(svc, acc, 'contact-updated', before), []);

    const unblock = body(await bulk(acc, { action: 'unblock', selector: { ids: [ids[0], ids[1]] } })).data;
    await work();
    assert.equal((await job(acc, unblock.id)).progress.changed, 2);
    assert.deepEqual(await contactsWhere(acc, 'blocked_at IS NOT NULL'), [ids[2], ids[4]]);
  });

  it('tags and untags the contacts a filter selects, and a selector matching nothing is a completed job of 0', async () => {
    const acc = await svc.newAccount();
    const vip = await makeContacts(svc, acc, 3, 'vip');
    const all = await makeContacts(svc, acc, 2, 'plain');
    const plain = all.filter((id) => !vip.includes(id));
    const since = await lastEventId(svc, acc);
    const tagged = body(
      await bulk(acc, {
        action: 'tag',
        tags: ['gold', { tag: 'hidden', visible: false }],
        selector: { filters: { tags: ['vip'] } },
      }),
    ).data;
    assert.deepEqual(tagged.tags, ['gold', 'hidden']);
    await work();
    assert.deepEqual(await contactsWhere(acc, `tags @> '[{"tag":"gold"}]'`), [...vip].sort());
    assert.deepEqual(
      await contactsWhere(acc, `tags @> '[{"tag":"hidden","visible":false}]'`),
      [...vip].sort(),
    );
    assert.deepEqual(
      await contactsWhere(acc, `tags @> '[{"tag":"vip"}]'`),
      [...vip].sort(),
      'existing tags kept',
    );
    assert.equal((await eventContacts(svc, acc, 'contact-updated', since)).length, 3);

    const untag = body(
      await bulk(acc, { action: 'untag', tags: ['gold'], selector: { filters: { all: true } } }),
    ).data;
    assert.equal(untag.progress.total, 5);
    await work();
    const u = await job(acc, untag.id);
    assert.deepEqual(u.progress, { total: 5, done: 5, failed: 0, changed: 3 });
    assert.deepEqual(await contactsWhere(acc, `tags @> '[{"tag":"gold"}]'`), []);
    assert.deepEqual(await contactsWhere(acc, `tags @> '[{"tag":"hidden"}]'`), [...vip].sort());
    assert.equal(plain.length, 2);

    const nothing = await bulk(acc, {
      action: 'block',
      selector: { filters: { tags: ['nobody-has-this'] } },
    });
    assert.equal(nothing.statusCode, 202, nothing.body);
    assert.equal(body(nothing).data.status, 'completed');
    assert.deepEqual(body(nothing).data.progress, { total: 0, done: 0, failed: 0, changed: 0 });
  });

  it('adds to and removes from a list, opts out and in, and deletes, each with the events of the single path', async () => {
    const acc = await svc.newAccount();
    const ids = await makeContacts(svc, acc, 4);
    const source = await newList(acc);
    const target = await newList(acc);
    const add = await call(svc.api, 'POST', `${base(acc)}/lists/${source}/contacts`, {
      auth: acc.auth,
      json: { contactIds: [ids[1], ids[3]] },
    });
    assert.ok(add.statusCode < 300, add.body);

    const copy = body(
      await bulk(acc, { action: 'addToList', listId: target, selector: { listId: source } }),
    ).data;
    await work();
    assert.equal((await job(acc, copy.id)).progress.changed, 2);
    const members = async (list: string) =>
      (
        await svc.db.query<{ contact_id: string }>(
          'SELECT contact_id FROM list_members WHERE account_id = $1 AND list_id = $2 ORDER BY contact_id',
          [acc.accountId, list],
        )
      ).rows.map((r) => r.contact_id);
    assert.deepEqual(await members(target), [ids[1], ids[3]]);
    const remove = body(
      await bulk(acc, { action: 'removeFromList', listId: target, selector: { ids: [ids[1], ids[2]] } }),
    ).data;
    await work();
    assert.equal((await job(acc, remove.id)).progress.changed, 1);
    assert.deepEqual(await members(target), [ids[3]]);

    let since = await lastEventId(svc, acc);
    const out = body(await bulk(acc, { action: 'optOut', selector: { ids: [ids[0], ids[3]] } })).data;
    await work();
    assert.equal((await job(acc, out.id)).progress.changed, 2);
    assert.deepEqual(await contactsWhere(acc, 'opted_out_at IS NOT NULL'), [ids[0], ids[3]]);
    assert.deepEqual(await eventContacts(svc, acc, 'contact-opt-out', since), [ids[0], ids[3]]);
    const { rows: optedMembers } = await svc.db.query(
      'SELECT count(*)::int AS n FROM list_members WHERE account_id = $1 AND contact_id = $2 AND opt_out_at IS NOT NULL',
      [acc.accountId, ids[3]],
    );
    assert.equal(optedMembers[0].n, 2, "the contact's list memberships are opted out too, as with STOP");

    since = await lastEventId(svc, acc);
    const back = body(await bulk(acc, { action: 'optIn', selector: { filters: { all: true } } })).data;
    await work();
    assert.equal((await job(acc, back.id)).progress.changed, 2, 'only the opted-out contacts change');
    assert.deepEqual(await eventContacts(svc, acc, 'contact-opt-in', since), [ids[0], ids[3]]);

    since = await lastEventId(svc, acc);
    const del = body(await bulk(acc, { action: 'delete', selector: { ids: [ids[0], ids[2]] } })).data;
    await work();
    assert.deepEqual((await job(acc, del.id)).progress, { total: 2, done: 2, failed: 0, changed: 2 });
    assert.deepEqual(await contactsWhere(acc, 'true'), [ids[1], ids[3]]);
    assert.deepEqual(await eventContacts(svc, acc, 'contact-removed', since), [ids[0], ids[2]]);
  });

  it('cancel stops a bulk job after the chunk in progress; a second cancel is 409', async () => {
    const acc = await svc.newAccount();
    const ids = await makeContacts(svc, acc, 5);
    const started = body(await bulk(acc, { action: 'block', selector: { ids } })).data;
    assert.equal(await runContactJobChunk(svc.db, 2), true);
    const sender = await svc.newAccount({ scopes: ['messages:send'] });
    // Another account's token (with the scope) cannot cancel it either.
    const foreign = await call(svc.api, 'PUT', `${base(sender)}/jobs/${started.id}/cancel`, {
      auth: sender.auth,
    });
    assert.equal(foreign.statusCode, 404, foreign.body);
    // A token of the same account that may send messages but not write contacts cannot stop it.
    const { client } = await createClient(svc.db, acc.accountId, {
      name: 'Sender',
      scopes: ['messages:send'],
    });
    const token = await svc.ctx.tokens.issue(
      { id: client.id, name: client.name, accountId: acc.accountId },
      client.scopes,
    );
    const scoped = await call(svc.api, 'PUT', `${base(acc)}/jobs/${started.id}/cancel`, {
      auth: { authorization: `Bearer ${token}` },
    });
    assert.equal(scoped.statusCode, 403, scoped.body);
    assert.match(body(scoped).error.message, /contacts:write/);
    assert.equal((await job(acc, started.id)).status, 'running');
    const res = await call(svc.api, 'PUT', `${base(acc)}/jobs/${started.id}/cancel`, { auth: acc.auth });
    assert.equal(res.statusCode, 200, res.body);
    const cancelled = body(res).data;
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(cancelled.progress, { total: 5, done: 2, failed: 0, changed: 2 });
    await work();
    assert.deepEqual(await contactsWhere(acc, 'blocked_at IS NOT NULL'), ids.slice(0, 2));
    assert.equal((await job(acc, started.id)).status, 'cancelled');
    const again = await call(svc.api, 'PUT', `${base(acc)}/jobs/${started.id}/cancel`, { auth: acc.auth });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(body(again).error.code, 'MSG-008');
    const listed = body(
      await call(svc.api, 'GET', `${base(acc)}/jobs?kind=contacts&status=cancelled`, { auth: acc.auth }),
    );
    assert.deepEqual(
      listed.data.map((j: { id: string }) => j.id),
      [started.id],
    );
  });
});

describe('a worker process killed in the middle of a bulk contact operation', () => {
  const N = 3000;
  let svc: TestService;
  let acc: TestAccount;
  const spawnWorker = workerProcesses();
  const worker = () =>
    spawnWorker({ DATABASE_URL: svc.config.databaseUrl as string, BULK_CHUNK_SIZE: '100' });
  before(async () => {
    svc = await startTestService();
    acc = await svc.newAccount();
  });
  after(() => svc.close());

  it('applies the action to every contact exactly once: one event per contact, none twice', async () => {
    const ids = await makeContacts(svc, acc, N);
    const since = await lastEventId(svc, acc);
    const res = await call(svc.api, 'POST', `${base(acc)}/bulk/contacts`, {
      auth: acc.auth,
      json: { action: 'tag', tags: ['bulk'], selector: { filters: { all: true } } },
    });
    assert.equal(res.statusCode, 202, res.body);
    const jobId = body(res).data.id;
    const progress = async () =>
      body(await call(svc.api, 'GET', `${base(acc)}/jobs/${jobId}`, { auth: acc.auth })).data;

    const first = worker();
    await eventually(async () => (await progress()).progress.done >= 300, 60_000, 20);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = await progress();
    assert.ok(atKill.progress.done < N, 'the kill landed before the job finished');
    assert.equal(atKill.progress.done % 100, 0, 'progress moves a whole chunk at a time');
    const { rows: partial } = await svc.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contacts WHERE account_id = $1 AND tags @> '[{"tag":"bulk"}]'`,
      [acc.accountId],
    );
    assert.equal(partial[0].n, atKill.progress.done, 'what is tagged is exactly what the job counts as done');

    const second = worker();
    const done = await eventually(
      async () => {
        const j = await progress();
        return j.status === 'completed' ? j : undefined;
      },
      90_000,
      100,
    );
    second.kill('SIGTERM');
    assert.deepEqual(done.progress, { total: N, done: N, failed: 0, changed: N });
    const events = await eventContacts(svc, acc, 'contact-updated', since);
    assert.equal(events.length, N, 'one contact-updated event per contact');
    assert.equal(new Set(events).size, N);
    assert.deepEqual([...events].sort(), [...ids].sort());
    const { rows } = await svc.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contacts WHERE account_id = $1
         AND (SELECT count(*) FROM jsonb_array_elements(tags) t WHERE t->>'tag' = 'bulk') = 1`,
      [acc.accountId],
    );
    assert.equal(rows[0].n, N);
  });
});
