import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { STATUS } from '../../src/smpp/status.ts';
import { body, call, eventually, type TestAccount } from '../helpers.ts';
import {
  type Credential,
  SERVER_OPTIONS,
  type SmppSuite,
  smppSuite,
  submitParams,
} from '../support/smpp-suite.ts';

/**
 * An ESME's submissions go to relay jobs (src/smpp/batcher.ts): one send job for a lane's batches,
 * one after another, which the dispatcher hands out in ranges while it keeps growing.
 */
function setUp(smppd: SmppSuite) {
  const s = {} as { acct: TestAccount; cred: Credential; source: string };
  before(async () => {
    s.acct = await smppd.svc.newAccount({ balance: 100 });
    s.cred = await smppd.issue(s.acct);
    s.source = await smppd.numberOf(s.acct);
  });
  const get = async (path: string) => {
    const res = await call(smppd.svc.api, 'GET', `/v1/accounts/${s.acct.accountId}${path}`, {
      auth: s.acct.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  /** One window of submit_sm to distinct destinations, all answered ESME_ROK: their messages. */
  const window = async (first: number, size: number) => {
    const e = await smppd.bound('transmitter', s.cred);
    const answers = await Promise.all(
      Array.from({ length: size }, (_, k) =>
        e.submit(
          submitParams(s.source, {
            destination_addr: `1201555${String(first + k).padStart(4, '0')}`,
            short_message: Buffer.from(`Relay ${first + k}`),
          }),
        ),
      ),
    );
    e.close();
    assert.deepEqual(
      answers.map((a) => a.command_status),
      answers.map(() => STATUS.ROK),
    );
    return Promise.all(answers.map((a) => get(`/messages/${a.message_id}`)));
  };
  return { s, get, window };
}

describe('SMPP relay jobs, the dispatcher running', () => {
  const smppd = smppSuite(SERVER_OPTIONS, { workers: true });
  const { get, window } = setUp(smppd);

  it('takes window after window into the same jobs, each sent out before the next arrives', async () => {
    const jobs = new Map<string, number>();
    for (let w = 0; w < 6; w++) {
      const messages = await window(100 + w * 5, 5);
      for (const m of messages) jobs.set(m.jobId, (jobs.get(m.jobId) ?? 0) + 1);
      // The dispatcher hands them all out and closes the job's cursor: the next window opens it again.
      await eventually(async () => {
        const now = await Promise.all(messages.map((m) => get(`/messages/${m.id}`)));
        return now.every((m) => m.status === 'sent' || m.status === 'delivered');
      });
    }
    // Two lanes a source: at most two jobs for the 30 texts, not one per window.
    assert.ok(jobs.size <= 2, `${jobs.size} jobs`);
    for (const [id, n] of jobs) {
      const job = await eventually(async () => {
        const j = await get(`/jobs/${id}`);
        return j.status === 'completed' ? j : undefined;
      });
      assert.equal(job.submitted, n);
      assert.equal(job.failures, 0);
    }
  });
});

describe('SMPP relay jobs beside a busy dispatcher', () => {
  const smppd = smppSuite(SERVER_OPTIONS, { workers: true });
  const { get, window } = setUp(smppd);

  it('leaves no message behind when windows keep arriving while the dispatcher drains and closes the jobs', async () => {
    // Two binds, each window sent as soon as the previous is answered: batches commit while claims
    // of the same jobs close and reopen their cursors.
    const binds = await Promise.all(
      [0, 1].map(async (b) => {
        const all = [];
        for (let w = 0; w < 8; w++) all.push(...(await window(300 + b * 100 + w * 5, 5)));
        return all;
      }),
    );
    const messages = binds.flat();
    assert.equal(messages.length, 80);
    // Read in one statement (80 reads a poll would pass the API's rate limit).
    await eventually(async () => {
      const { rows } = await smppd.svc.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE id = ANY($1::uuid[]) AND status IN ('sent', 'delivered')`,
        [messages.map((m) => m.id)],
      );
      return rows[0].n === 80;
    });
    const jobs = [...new Set(messages.map((m) => m.jobId))];
    let submitted = 0;
    for (const id of jobs) {
      const job = await eventually(async () => {
        const j = await get(`/jobs/${id}`);
        return j.status === 'completed' ? j : undefined;
      });
      submitted += job.submitted;
    }
    assert.equal(submitted, 80);
  });
});

describe('SMPP relay jobs, no dispatcher', () => {
  const smppd = smppSuite(SERVER_OPTIONS);
  const { s, get, window } = setUp(smppd);

  it('a cancelled relay job takes no more: the next window goes to another job', async () => {
    const before = await window(200, 3);
    const jobId = before[0].jobId;
    const cancel = await call(smppd.svc.api, 'PUT', `/v1/accounts/${s.acct.accountId}/jobs/${jobId}/cancel`, {
      auth: s.acct.auth,
    });
    assert.equal(cancel.statusCode, 200, cancel.body);
    const after = await window(210, 3);
    for (const m of after) {
      assert.notEqual(m.jobId, jobId);
      assert.equal(m.status, 'queued');
    }
    const job = await get(`/jobs/${jobId}`);
    assert.equal(job.status, 'cancelled');
    assert.equal(job.submitted, before.filter((m) => m.jobId === jobId).length);
  });
});
