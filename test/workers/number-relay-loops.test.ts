/**
 * Issue 25, "automation cannot run away", black-box: two numbers of one account that text each
 * other. The service runs as `npm start` runs it (every worker); the test is the carrier between
 * the two numbers: every text one of them sends to the other comes back in as the other's inbound
 * text (the simulator's inbound door), as it would between two real numbers. Whatever answers on
 * each side (keyword workflows, autoresponders, the HELP reply), the exchange must stop by itself.
 * (Reported in the issue: a keyword workflow on two numbers relayed to each other, 68 texts in 60 s
 * and climbing.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENTRY_LIMIT } from '../../src/domain/workflows/enroll.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const node = (id: string, type: string, config?: object) => ({ id, type: { id: type }, config });
const edge = (source: string, target: string) => ({ source, target });

/** trigger.keyword(keyword) → send `answer`. */
const keywordAnswer = (keyword: string, answer: string) => ({
  nodes: [
    node('t', 'trigger.keyword', { keyword }),
    node('send', 'action.send-message', { message: answer }),
  ],
  edges: [edge('t', 'send')],
});

/** How long nothing new must go out before an exchange counts as stopped. */
const QUIET_MS = 4000;

describe("loops between two of an account's own numbers stop by themselves", () => {
  let svc: TestService;
  const relays: { stop: () => void }[] = [];

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    svc.startWorkers();
  });
  after(async () => {
    for (const r of relays) r.stop();
    await svc.close();
  });

  const api = (acc: TestAccount, method: 'GET' | 'POST', path: string, json?: object) =>
    call(svc.api, method, `/v1/accounts/${acc.accountId}${path}`, { auth: acc.auth, json });

  /** An account with two numbers in its default group: the one it came with and one it takes. */
  const twoNumbers = async () => {
    const acc = await svc.newAccount({ balance: 1000 });
    const avail = body(await api(acc, 'GET', '/availablephonenumbers?limit=1')).data;
    const take = await api(acc, 'POST', '/phonenumbers', { number: avail[0].number });
    assert.equal(take.statusCode, 201, take.body);
    const { rows } = await svc.db.query<{ number: string }>(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at`,
      [acc.accountId],
    );
    assert.equal(rows.length, 2);
    return { acc, n1: rows[0].number, n2: rows[1].number };
  };

  /** A text as a carrier delivers it to one of our numbers. */
  const deliver = async (from: string, to: string, text: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to, text },
    });
    assert.equal(res.statusCode, 200, res.body);
  };

  /**
   * The carrier between the two numbers: each text one sends to the other, once the dispatcher
   * handed it over, arrives at the other as an inbound text.
   */
  const relay = (acc: TestAccount, numbers: string[]) => {
    const relayed = new Set<string>();
    let stopped = false;
    const pump = async () => {
      while (!stopped) {
        const { rows } = await svc.db.query<{
          id: string;
          from_number: string;
          to_number: string;
          body: string;
        }>(
          `SELECT id, from_number, to_number, body FROM messages
            WHERE account_id = $1 AND outgoing AND status IN ('sent', 'delivered')
              AND from_number = ANY($2::text[]) AND to_number = ANY($2::text[])
            ORDER BY id`,
          [acc.accountId, numbers],
        );
        for (const m of rows) {
          if (relayed.has(m.id)) continue;
          relayed.add(m.id);
          await deliver(m.from_number, m.to_number, m.body);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const done = pump().catch((err: unknown) => {
      if (!stopped) throw err;
    });
    const r = {
      stop: () => {
        stopped = true;
      },
      done,
    };
    relays.push(r);
    return r;
  };

  /** The texts the account sent from one of the numbers to the other. */
  const between = async (acc: TestAccount, numbers: string[]) => {
    const { rows } = await svc.db.query<{ body: string }>(
      `SELECT body FROM messages WHERE account_id = $1 AND outgoing
          AND from_number = ANY($2::text[]) AND to_number = ANY($2::text[]) ORDER BY id`,
      [acc.accountId, numbers],
    );
    return rows.map((r) => r.body);
  };

  /**
   * Waits for the first answer, then until nothing new went out for QUIET_MS while nothing was
   * left to do (no text to send, no workflow cause or run under way); answers the texts.
   */
  const quiet = async (acc: TestAccount, numbers: string[]) => {
    await eventually(async () => (await between(acc, numbers)).length > 0, 60_000, 100);
    let last = -1;
    let since = Date.now();
    for (;;) {
      const n = (await between(acc, numbers)).length;
      const { rows } = await svc.db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM messages WHERE account_id = $1 AND outgoing AND status IN ('queued', 'sending'))
              + (SELECT count(*) FROM workflow_trigger_queue WHERE account_id = $1)
              + (SELECT count(*) FROM workflow_runs WHERE account_id = $1 AND status = 'active') AS n`,
        [acc.accountId],
      );
      if (n !== last || Number(rows[0].n) > 0) {
        last = n;
        since = Date.now();
      } else if (Date.now() - since >= QUIET_MS) {
        return between(acc, numbers);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const workflow = async (acc: TestAccount, definition: object) => {
    const res = await api(acc, 'POST', '/workflows', {
      name: 'Relay',
      versions: [{ name: 'v1', definition, activate: true }],
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data.id as string;
  };

  const autoresponder = async (acc: TestAccount, keywords: string[], message: string) => {
    const res = await api(acc, 'POST', '/autoresponders', {
      name: `Answers ${keywords.join(', ')}`,
      trigger: { type: 'keywords', keywords },
      message: { message },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data.id as string;
  };

  /** The workflow's runs as the console's Runs panel asks for them (a status filter, 20 a page). */
  const runs = async (acc: TestAccount, workflowId: string, status?: string) => {
    const q = `?offset=0&limit=20${status ? `&status=${status}` : ''}`;
    const res = await api(acc, 'GET', `/workflows/${workflowId}/enrollments${q}`);
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data as {
      status: string;
      contact: { id: string };
      error?: { code: string; description: string };
    }[];
  };

  it('two keyword workflows answering each other across the two numbers: stopped by the re-entry bound (WF-021)', async () => {
    const { acc, n1, n2 } = await twoNumbers();
    const ping = await workflow(acc, keywordAnswer('ping', 'pong'));
    const pong = await workflow(acc, keywordAnswer('pong', 'ping'));
    relay(acc, [n1, n2]);
    await deliver(n1, n2, 'ping');
    const texts = await quiet(acc, [n1, n2]);
    // Each number is a contact of the other side entering one workflow per exchange: ENTRY_LIMIT
    // entries each, then the next entry is stopped and nothing more is sent. Before the bound
    // there was no end (68 texts in 60 s, climbing).
    assert.ok(texts.length >= ENTRY_LIMIT, `it did loop: ${texts.length} texts`);
    assert.ok(texts.length <= 2 * ENTRY_LIMIT, `${texts.length} texts`);
    const stopped = [...(await runs(acc, ping, 'stopped')), ...(await runs(acc, pong, 'stopped'))];
    assert.equal(stopped.length, 1, 'one entry stopped, and the exchange with it');
    // What the console's Runs panel shows in its Error column: "<description> (<code>)".
    assert.equal(stopped[0].error?.code, 'WF-021');
    assert.match(
      stopped[0].error?.description ?? '',
      new RegExp(`entered workflows ${ENTRY_LIMIT} times in \\d+ minutes`),
    );
    const all = [...(await runs(acc, ping)), ...(await runs(acc, pong))];
    assert.ok(all.every((r) => r.status === 'completed' || r.status === 'stopped'));
  });

  it('one autoresponder answering on both numbers: each number gets one answer, then the window holds', async () => {
    const { acc, n1, n2 } = await twoNumbers();
    const id = await autoresponder(acc, ['hello'], 'hello there');
    relay(acc, [n1, n2]);
    await deliver(n1, n2, 'hello');
    const texts = await quiet(acc, [n1, n2]);
    assert.deepEqual(texts, ['hello there', 'hello there']);
    const stats = body(await api(acc, 'GET', `/autoresponders/${id}`)).data.stats;
    assert.equal(stats.repliesSent, 2);
    assert.equal(stats.suppressed, 1, 'the third answer is held by the window');
  });

  it('an autoresponder and a keyword workflow answering each other: the autoresponder window ends it', async () => {
    const { acc, n1, n2 } = await twoNumbers();
    const id = await autoresponder(acc, ['marco'], 'polo');
    await workflow(acc, keywordAnswer('polo', 'marco'));
    relay(acc, [n1, n2]);
    await deliver(n1, n2, 'marco');
    const texts = await quiet(acc, [n1, n2]);
    // polo (the autoresponder, to the first number), marco (the workflow, to the second), and the
    // autoresponder, having answered the first number within its window, stays silent.
    assert.deepEqual(texts, ['polo', 'marco']);
    const stats = body(await api(acc, 'GET', `/autoresponders/${id}`)).data.stats;
    assert.equal(stats.suppressed, 1);
  });

  it('HELP answers and a keyword workflow answering them with HELP: stopped by the re-entry bound', async () => {
    const { acc, n1, n2 } = await twoNumbers();
    // The default HELP answer: "<account>: Reply STOP to unsubscribe. Msg & data rates may apply."
    const wf = await workflow(acc, keywordAnswer('rates', 'HELP'));
    relay(acc, [n1, n2]);
    await deliver(n1, n2, 'HELP');
    const texts = await quiet(acc, [n1, n2]);
    // HELP is answered every time (carriers require it), but its answer enters the workflow, which
    // the bound stops: ENTRY_LIMIT HELPs and their answers, give or take the first.
    assert.ok(texts.length <= 2 * ENTRY_LIMIT + 1, `${texts.length} texts`);
    assert.ok(texts.filter((t) => t === 'HELP').length <= ENTRY_LIMIT);
    const stopped = await runs(acc, wf, 'stopped');
    assert.equal(stopped.length, 1);
    assert.equal(stopped[0].error?.code, 'WF-021');
  });

  it('an autoresponder answering with HELP: the HELP answer says STOP, which no autoresponder answers', async () => {
    const { acc, n1, n2 } = await twoNumbers();
    await autoresponder(acc, ['hi'], 'HELP');
    relay(acc, [n1, n2]);
    await deliver(n1, n2, 'hi');
    const texts = await quiet(acc, [n1, n2]);
    assert.equal(texts.length, 2, texts.join(' | '));
    assert.equal(texts[0], 'HELP');
    assert.match(texts[1], /STOP/);
  });
});
