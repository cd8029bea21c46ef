import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimRangeBatch } from '../../src/domain/send/dispatch/ranges.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

describe('jobs: GET /v1/accounts/:accountId/jobs, GET …/jobs/:jobId, PUT …/jobs/:jobId/cancel', () => {
  let svc: TestService;
  let seq = 0;
  const nextMobile = () => `+1202${String(4_000_000 + seq++).padStart(7, '0')}`;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const send = (acc: TestAccount, json: object) =>
    call(svc.api, 'POST', `${base(acc)}/messages`, { auth: acc.auth, json });
  const getJob = (acc: TestAccount, jobId: string, auth = acc.auth) =>
    call(svc.api, 'GET', `${base(acc)}/jobs/${jobId}`, { auth });
  const cancel = (acc: TestAccount, jobId: string, auth = acc.auth) =>
    call(svc.api, 'PUT', `${base(acc)}/jobs/${jobId}/cancel`, { auth });
  const messagesOf = async (acc: TestAccount, jobId: string) => {
    const { rows } = await svc.db.query<{ id: string; status: string; price: string; code: string | null }>(
      `SELECT id, status, price, error->>'code' AS code FROM messages WHERE account_id = $1 AND job_id = $2 ORDER BY id`,
      [acc.accountId, jobId],
    );
    return rows;
  };
  /** An account with `n` contacts tagged `t`, plus one opted-out contact tagged `t`. */
  const setup = async (n: number, balanceAmount = 100) => {
    const acc = await svc.newAccount({ balance: balanceAmount });
    for (let i = 0; i < n; i++) {
      const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
        auth: acc.auth,
        json: { mobile: nextMobile(), firstName: `P${i}`, tags: ['t'] },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    return acc;
  };

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('answers 401 without a token and 403 without the scope', async () => {
    const acc = await setup(1);
    const sent = body(await send(acc, { filters: { all: true }, template: 'Hi' })).data;
    for (const [method, url] of [
      ['GET', `${base(acc)}/jobs`],
      ['GET', `${base(acc)}/jobs/${sent.jobId}`],
      ['PUT', `${base(acc)}/jobs/${sent.jobId}/cancel`],
    ] as const) {
      const res = await call(svc.api, method, url);
      assert.equal(res.statusCode, 401, `${method} ${url}`);
      assert.equal(body(res).error.code, 'AUTH-001');
    }
    const noScopes = await svc.newAccount({ scopes: ['contacts:read'] });
    for (const [method, url] of [
      ['GET', `${base(noScopes)}/jobs`],
      ['GET', `${base(noScopes)}/jobs/${sent.jobId}`],
      ['PUT', `${base(noScopes)}/jobs/${sent.jobId}/cancel`],
    ] as const) {
      const res = await call(svc.api, method, url, { auth: noScopes.auth });
      assert.equal(res.statusCode, 403, `${method} ${url}`);
      assert.equal(body(res).error.code, 'AUTH-004');
    }
    // The job is untouched by all of that.
    assert.equal(body(await getJob(acc, sent.jobId)).data.status, 'queued');
  });

  it('answers the job of a quick campaign like any send, with its campaign', async () => {
    const acc = await setup(2);
    const list = body(
      await call(svc.api, 'POST', `${base(acc)}/lists`, { auth: acc.auth, json: { name: 'All' } }),
    ).data.id;
    const ids = body(await call(svc.api, 'GET', `${base(acc)}/contacts`, { auth: acc.auth })).data.map(
      (c: { id: string }) => c.id,
    );
    await call(svc.api, 'POST', `${base(acc)}/lists/${list}/contacts`, {
      auth: acc.auth,
      json: { contactIds: ids },
    });
    const groups = body(await call(svc.api, 'GET', `${base(acc)}/groups`, { auth: acc.auth })).data;
    const groupId = groups.find((g: { isDefault: boolean }) => g.isDefault).id;
    const res = await call(svc.api, 'POST', `${base(acc)}/quickcampaigns`, {
      auth: acc.auth,
      json: { name: 'Quick', groupId, listId: list, message: { message: 'Hello' } },
    });
    assert.equal(res.statusCode, 200, res.body);
    const { campaign, job: quickJob } = body(res).data;
    const got = await getJob(acc, quickJob.id);
    assert.equal(got.statusCode, 200, got.body);
    const j = body(got).data;
    assert.equal(j.kind, 'send');
    assert.equal(j.campaignId, campaign.id);
    assert.equal(j.submitted, 2);
    assert.equal(j.counts.queued, 2);
    const listed = body(await call(svc.api, 'GET', `${base(acc)}/jobs`, { auth: acc.auth }));
    assert.deepEqual(
      listed.data.map((x: { id: string }) => x.id),
      [quickJob.id],
    );
    assert.equal('counts' in listed.data[0], false, 'the list leaves counts to GET …/jobs/{jobId}');
  });

  it('refuses bad list parameters with 400', async () => {
    const acc = await setup(0);
    for (const q of [
      'limit=0',
      'limit=101',
      'offset=-1',
      'status=nope',
      'kind=x',
      'from=yesterday',
      'to=2026-13-01',
    ]) {
      const res = await call(svc.api, 'GET', `${base(acc)}/jobs?${q}`, { auth: acc.auth });
      assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
      assert.equal(body(res).success, false);
    }
  });

  it("answers 404 MSG-007 for an unknown, malformed or another account's job, and cancels nothing of it", async () => {
    const acc = await setup(1);
    const other = await setup(2);
    const theirs = body(await send(other, { filters: { all: true }, template: 'Theirs' })).data.jobId;
    for (const id of [theirs, '01937c1e-0000-7000-8000-00000000abcd', 'nope', `${theirs}x`]) {
      const got = await getJob(acc, id);
      assert.equal(got.statusCode, 404, got.body);
      assert.equal(body(got).error.code, 'MSG-007');
      const c = await cancel(acc, id);
      assert.equal(c.statusCode, 404, c.body);
    }
    assert.ok((await messagesOf(other, theirs)).every((m) => m.status === 'queued'));
    const list = body(await call(svc.api, 'GET', `${base(acc)}/jobs`, { auth: acc.auth }));
    assert.ok(list.data.every((j: { id: string }) => j.id !== theirs));
  });

  it('lists every send as a job, paged and filtered, each with counts that match its messages', async () => {
    const acc = await setup(3);
    // One contact that opted out: its message is recorded failed (CONT-010).
    await svc.db.query(
      `UPDATE contacts SET opted_out_at = now() WHERE account_id = $1 AND first_name = 'P0'`,
      [acc.accountId],
    );
    const first = body(await send(acc, { filters: { tags: ['t'] }, template: 'One' })).data;
    const second = body(
      await send(acc, { filters: { all: true }, template: 'Two', contacts: [{ mobile: { number: '12' } }] }),
    ).data;
    const page1 = body(await call(svc.api, 'GET', `${base(acc)}/jobs?limit=1`, { auth: acc.auth }));
    assert.deepEqual(page1.pagination, { limit: 1, offset: 0, hasNext: true, totalCount: 2 });
    assert.equal(page1.data[0].id, second.jobId, 'newest first');
    const page2 = body(await call(svc.api, 'GET', `${base(acc)}/jobs?limit=1&offset=1`, { auth: acc.auth }));
    assert.equal(page2.data[0].id, first.jobId);
    assert.equal(page2.pagination.hasNext, false);

    const job = body(await getJob(acc, first.jobId)).data;
    assert.equal(job.kind, 'send');
    assert.equal(job.status, 'queued');
    assert.equal(job.submitted, 3);
    assert.deepEqual(job.counts, {
      queued: 2,
      sending: 0,
      sent: 0,
      delivered: 0,
      undelivered: 0,
      failed: 1,
      cancelled: 0,
    });
    // Unset fields are left out, never null.
    for (const [k, v] of Object.entries(job)) assert.notEqual(v, null, k);
    assert.equal('sendAt' in job, false);
    const messages = await messagesOf(acc, first.jobId);
    assert.equal(messages.filter((m) => m.status === 'queued').length, job.counts.queued);
    assert.equal(messages.filter((m) => m.status === 'failed').length, job.counts.failed);

    const two = body(await getJob(acc, second.jobId)).data;
    assert.equal(two.invalid.length, 1);
    assert.equal(two.counts.failed, 2, 'the opted-out contact and the invalid number');

    const queued = body(
      await call(svc.api, 'GET', `${base(acc)}/jobs?status=queued&kind=send`, { auth: acc.auth }),
    );
    assert.equal(queued.pagination.totalCount, 2);
    const none = body(
      await call(
        svc.api,
        'GET',
        `${base(acc)}/jobs?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
        {
          auth: acc.auth,
        },
      ),
    );
    assert.equal(none.pagination.totalCount, 0);
    const contactsOnly = body(
      await call(svc.api, 'GET', `${base(acc)}/jobs?kind=contacts`, { auth: acc.auth }),
    );
    assert.equal(contactsOnly.pagination.totalCount, 0);
  });
});

describe('jobs: cancelling a running send (with a dispatcher)', () => {
  let svc: TestService;
  let seq = 0;
  const nextMobile = () => `+1202${String(4_000_000 + seq++).padStart(7, '0')}`;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const send = (acc: TestAccount, json: object) =>
    call(svc.api, 'POST', `${base(acc)}/messages`, { auth: acc.auth, json });
  const getJob = (acc: TestAccount, jobId: string, auth = acc.auth) =>
    call(svc.api, 'GET', `${base(acc)}/jobs/${jobId}`, { auth });
  const cancel = (acc: TestAccount, jobId: string, auth = acc.auth) =>
    call(svc.api, 'PUT', `${base(acc)}/jobs/${jobId}/cancel`, { auth });
  const balance = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `${base(acc)}/balance`, { auth: acc.auth })).data.balance as number;
  const messagesOf = async (acc: TestAccount, jobId: string) => {
    const { rows } = await svc.db.query<{ id: string; status: string; price: string; code: string | null }>(
      `SELECT id, status, price, error->>'code' AS code FROM messages WHERE account_id = $1 AND job_id = $2 ORDER BY id`,
      [acc.accountId, jobId],
    );
    return rows;
  };
  /** An account with `n` contacts tagged `t`, plus one opted-out contact tagged `t`. */
  const setup = async (n: number, balanceAmount = 100) => {
    const acc = await svc.newAccount({ balance: balanceAmount });
    for (let i = 0; i < n; i++) {
      const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
        auth: acc.auth,
        json: { mobile: nextMobile(), firstName: `P${i}`, tags: ['t'] },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    return acc;
  };

  let dispatching = false;
  /** Starts the dispatcher once (the first test claims by hand before it runs). */
  const ensureDispatch = () => {
    if (!dispatching) svc.startWorkers([dispatch]);
    dispatching = true;
  };

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  it('cancel fails and refunds exactly the messages no dispatcher holds; those it holds are still sent', async () => {
    const acc = await setup(5, 100);
    // The test counts the cancel's message-status events, written only where heard.
    await listenToEvents(svc.db, acc.accountId, ['message-status']);
    const before = await balance(acc);
    const sent = body(await send(acc, { filters: { all: true }, template: 'Cancel me' })).data;
    assert.equal(sent.queued, 5);
    const afterSend = await balance(acc);
    const each = (before - afterSend) / 5;
    assert.ok(each > 0);

    // A dispatcher claims the first two messages (a range) and has not submitted them yet.
    const claim = await claimRangeBatch(svc.ctx, 2);
    assert.equal(claim.claimed.length, 2);
    const held = new Set(claim.claimed.map((m) => m.id));
    assert.deepEqual(body(await getJob(acc, sent.jobId)).data.counts.sending, 2);

    const res = await cancel(acc, sent.jobId);
    assert.equal(res.statusCode, 200, res.body);
    const job = body(res).data;
    assert.equal(job.status, 'cancelled');
    assert.equal(job.cancelled.by.id, acc.clientId);
    assert.equal(job.counts.cancelled, 3);
    assert.equal(job.counts.sending, 2);
    const messages = await messagesOf(acc, sent.jobId);
    for (const m of messages) {
      if (held.has(m.id)) assert.equal(m.status, 'queued', 'a held message is left to its dispatcher');
      else {
        assert.equal(m.status, 'failed');
        assert.equal(m.code, 'JOB-001');
        assert.equal(Number(m.price), 0);
      }
    }
    assert.ok(Math.abs((await balance(acc)) - (afterSend + 3 * each)) < 1e-9, 'three refunds, exactly');
    const events = await svc.db.query(
      `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'message-status' AND data->'message'->>'jobId' = $2`,
      [acc.accountId, sent.jobId],
    );
    assert.equal(events.rows[0].n, 3, 'one message-status event per cancelled message');

    // A second cancel changes nothing.
    const again = await cancel(acc, sent.jobId);
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(body(again).error.code, 'MSG-008');

    // The dispatcher's range expires and is taken over: the two held messages go; the cancelled stay failed.
    await svc.db.query(
      `UPDATE dispatch_ranges SET claimed_until = now() - interval '1 second' WHERE account_id = $1`,
      [acc.accountId],
    );
    ensureDispatch();
    await eventually(async () => (await messagesOf(acc, sent.jobId)).every((m) => m.status !== 'queued'));
    const final = await messagesOf(acc, sent.jobId);
    assert.equal(final.filter((m) => m.code === 'JOB-001' && m.status === 'failed').length, 3);
    assert.equal(final.filter((m) => held.has(m.id) && m.status !== 'failed').length, 2);
    assert.ok(Math.abs((await balance(acc)) - (afterSend + 3 * each)) < 1e-9, 'no refund of a sent message');
    const after = body(await getJob(acc, sent.jobId)).data;
    assert.equal(after.status, 'cancelled');
    assert.equal(after.counts.cancelled, 3);
  });

  it('cancelling a completed send answers 409 MSG-008 and changes nothing', async () => {
    const acc = await setup(2);
    ensureDispatch();
    const sent = body(await send(acc, { filters: { all: true }, template: 'Done' })).data;
    await eventually(async () => body(await getJob(acc, sent.jobId)).data.status === 'completed');
    const before = await balance(acc);
    const res = await cancel(acc, sent.jobId);
    assert.equal(res.statusCode, 409, res.body);
    assert.equal(body(res).error.code, 'MSG-008');
    assert.match(body(res).error.message, /completed/);
    assert.equal(await balance(acc), before);
    assert.equal(body(await getJob(acc, sent.jobId)).data.status, 'completed');
  });

  it('a cancel racing the dispatcher never refunds a message that reached the carrier', async () => {
    const acc = await setup(40, 100);
    const numbers = body(await call(svc.api, 'GET', `${base(acc)}/phonenumbers`, { auth: acc.auth }));
    // A slow number: the send takes seconds, so the cancel lands while messages are still going out.
    await call(svc.api, 'PUT', `${base(acc)}/phonenumbers/${numbers.data[0].id}`, {
      auth: acc.auth,
      json: { throughput: 10 },
    });
    ensureDispatch();
    const startBalance = await balance(acc);
    const sent = body(await send(acc, { filters: { all: true }, template: 'Race' })).data;
    await eventually(async () => (await messagesOf(acc, sent.jobId)).some((m) => m.status !== 'queued'));
    const res = await cancel(acc, sent.jobId);
    assert.equal(res.statusCode, 200, res.body);
    await eventually(async () =>
      (await messagesOf(acc, sent.jobId)).every((m) => !['queued', 'sending'].includes(m.status)),
    );
    const final = await messagesOf(acc, sent.jobId);
    const { rows } = await svc.db.query<{ id: string }>(
      `SELECT id FROM messages WHERE account_id = $1 AND job_id = $2 AND (sent_at IS NOT NULL OR provider_ref IS NOT NULL)`,
      [acc.accountId, sent.jobId],
    );
    const reached = new Set(rows.map((r) => r.id));
    const cancelled = final.filter((m) => m.code === 'JOB-001');
    assert.ok(cancelled.length > 0, 'the cancel stopped some messages');
    assert.ok(cancelled.length < 40, 'some messages had gone before the cancel');
    for (const m of cancelled) assert.equal(reached.has(m.id), false, `cancelled message ${m.id} was sent`);
    const charged = final.filter((m) => m.code !== 'JOB-001');
    for (const m of charged) assert.ok(Number(m.price) > 0);
    const price = charged.reduce((s, m) => s + Number(m.price), 0);
    assert.ok(
      Math.abs(startBalance - (await balance(acc)) - price) < 1e-9,
      'charged exactly the sent messages',
    );
  });
});
