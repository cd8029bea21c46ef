import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';
import { countMessages, workerProcesses } from '../support/worker-processes.ts';

const N = 3000;

describe('a worker process killed in the middle of a bulk send', () => {
  let svc: TestService;
  let a: TestAccount;
  const spawnWorker = workerProcesses();
  /** A `sparrow worker` process on the test's database. */
  const worker = () =>
    spawnWorker({ DATABASE_URL: svc.config.databaseUrl!, SIMULATOR_DELIVERY_DELAY_MS: '20' });
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 1000 });
    // The test counts message-sent events (one per message), written only where heard.
    await listenToEvents(svc.db, a.accountId, ['message-sent']);
  });
  after(() => svc.close());

  const count = (where: string) => countMessages(svc, a.accountId, where);

  it('loses nothing: another worker takes over the expired claims, each message is sent and charged once', async () => {
    const rows = Array.from({ length: N }, (_, i) => `US,Person${i},+1202${String(3_000_000 + i)}`).join(
      '\n',
    );
    const upload = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      headers: { ...a.auth, 'content-type': 'text/csv' },
      payload: `country,firstName,mobile\n${rows}\n`,
    });
    assert.equal(body(upload).data.inserted, N);
    const numbers = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/phonenumbers`, { auth: a.auth }),
    );
    const put = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}/phonenumbers/${numbers.data[0].id}`, {
      auth: a.auth,
      json: { throughput: 400 },
    });
    assert.equal(put.statusCode, 200);

    const send = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { filters: { all: true }, template: 'Hello {{{firstName}}}' },
    });
    assert.equal(send.statusCode, 200);
    assert.equal(body(send).data.queued, N);
    const charged = body(send).data.estimatedPrice;
    const balanceAfterSend = body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, { auth: a.auth }),
    ).data.balance;

    const first = worker();
    await eventually(async () => (await count(`status IN ('sent', 'delivered')`)) >= 400, 60_000, 50);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const sentBeforeKill = await count(`status IN ('sent', 'delivered')`);
    assert.ok(sentBeforeKill < N, 'the kill landed before the send finished');

    const second = worker();
    await eventually(async () => (await count(`status IN ('queued', 'sending')`)) === 0, 90_000, 100);
    second.kill('SIGTERM');

    assert.equal(await count(`status IN ('sent', 'delivered') AND outgoing`), N);
    assert.equal(await count(`status = 'failed'`), 0);
    const events = await svc.db.query(
      `SELECT count(*)::int AS n, count(DISTINCT data->'message'->>'id')::int AS distinct_messages
         FROM events WHERE account_id = $1 AND type = 'message-sent'`,
      [a.accountId],
    );
    assert.deepEqual(events.rows[0], { n: N, distinct_messages: N }, 'one message-sent event per message');
    const balance = body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/balance`, { auth: a.auth }))
      .data.balance;
    assert.equal(balance, balanceAfterSend, 'no refund and no second charge');
    assert.ok(Math.abs(1000 - balance - charged) < 1e-6);
  });
});
