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
    const answers = await e.submitWindow(
      Array.from({ length: size }, (_, k) =>
        submitParams(s.source, {
          destination_addr: `1201555${String(first + k).padStart(4, '0')}`,
          short_message: Buffer.from(`Relay ${first + k}`),
        }),
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

  it('a later window records an opted-out recipient as failed with one receipt queued, and makes the new one a contact', async () => {
    const [first] = await window(220, 1);
    const made = await call(smppd.svc.api, 'POST', `/v1/accounts/${s.acct.accountId}/contacts`, {
      auth: s.acct.auth,
      json: { mobile: { number: '+12015550230' } },
    });
    assert.equal(made.statusCode, 201, made.body);
    await smppd.svc.db.query('UPDATE contacts SET opted_out_at = now() WHERE account_id = $1 AND id = $2', [
      s.acct.accountId,
      body(made).data[0].id,
    ]);
    const e = await smppd.bound('transmitter', s.cred);
    const answers = await e.submitWindow(
      ['12015550230', '12015550231'].map((destination_addr) =>
        submitParams(s.source, { destination_addr, registered_delivery: 1 }),
      ),
    );
    e.close();
    assert.deepEqual(
      answers.map((a) => a.command_status),
      [STATUS.ROK, STATUS.ROK],
    );
    const [out, ok] = await Promise.all(answers.map((a) => get(`/messages/${a.message_id}`)));
    // The relay's job: the window went as one batch after the first.
    assert.equal(out.jobId, first.jobId);
    assert.equal(ok.jobId, first.jobId);
    assert.equal(out.status, 'failed');
    assert.equal(out.error?.code, 'CONT-010');
    assert.equal(ok.status, 'queued');
    const { rows: receipts } = await smppd.svc.db.query<{ status: string }>(
      `SELECT status FROM smpp_outbox WHERE account_id = $1 AND message_id = $2 AND kind = 'receipt'`,
      [s.acct.accountId, out.id],
    );
    assert.deepEqual(
      receipts.map((r) => r.status),
      ['failed'],
    );
    const { rows: contacts } = await smppd.svc.db.query<{ id: string }>(
      `SELECT id FROM contacts WHERE account_id = $1 AND mobile_number = '+12015550231'`,
      [s.acct.accountId],
    );
    assert.equal(contacts.length, 1);
    assert.equal(ok.contact.id, contacts[0].id);
  });

  it('a later window writes contact-created once the account listens for it, and the relay goes on', async () => {
    const createdEvents = async () =>
      (
        await smppd.svc.db.query<{ contact: string }>(
          `SELECT data ->> 'id' AS contact FROM events WHERE account_id = $1 AND type = 'contact-created'`,
          [s.acct.accountId],
        )
      ).rows.map((r) => r.contact);
    const earlier = [...(await window(300, 5)), ...(await window(310, 5))];
    assert.deepEqual(await createdEvents(), [], 'nobody listens: none written');
    const hook = await call(smppd.svc.api, 'POST', `/v1/accounts/${s.acct.accountId}/webhooks`, {
      auth: s.acct.auth,
      json: { url: 'http://127.0.0.1:9/hook', eventTypes: ['contact-created'] },
    });
    assert.equal(hook.statusCode, 200, hook.body);
    try {
      const later = [...(await window(320, 5)), ...(await window(330, 5))];
      // Each new recipient of the later windows, once; the relay's jobs took them (not one by one).
      assert.deepEqual((await createdEvents()).sort(), later.map((m) => m.contact.id).sort());
      const jobs = new Set(earlier.map((m) => m.jobId));
      assert.ok(
        later.every((m) => jobs.has(m.jobId)),
        'the later windows went to the relay jobs of the earlier ones',
      );
    } finally {
      const del = await call(
        smppd.svc.api,
        'DELETE',
        `/v1/accounts/${s.acct.accountId}/webhooks/${body(hook).data.id}`,
        { auth: s.acct.auth },
      );
      assert.ok(del.statusCode < 300, del.body);
    }
  });

  it('a later window takes the account’s sending settings as they are now, not as the relay first read them', async () => {
    await window(260, 1);
    const put = (json: object) =>
      call(smppd.svc.api, 'PUT', `/v1/accounts/${s.acct.accountId}`, { auth: s.acct.auth, json });
    const stored = async (id: string) =>
      (
        await smppd.svc.db.query<{ body: string; encoding: string; expires_at: Date | null }>(
          'SELECT body, encoding, expires_at FROM messages WHERE account_id = $1 AND id = $2',
          [s.acct.accountId, id],
        )
      ).rows[0];
    // Smart encoding on: the curly quotes become plain ones (GSM-7).
    const e = await smppd.bound('transmitter', s.cred);
    const text = Buffer.from('\u201cHi\u201d', 'utf16le').swap16();
    const before = await e.submit(
      submitParams(s.source, { destination_addr: '12015550261', data_coding: 8, short_message: text }),
    );
    assert.equal(before.command_status, STATUS.ROK);
    assert.deepEqual(await stored(String(before.message_id)), {
      body: '"Hi"',
      encoding: 'GSM-7',
      expires_at: null,
    });
    try {
      assert.equal((await put({ smartEncoding: false, validityPeriod: 3600 })).statusCode, 200);
      const later = await e.submit(
        submitParams(s.source, { destination_addr: '12015550262', data_coding: 8, short_message: text }),
      );
      assert.equal(later.command_status, STATUS.ROK);
      const m = await stored(String(later.message_id));
      assert.equal(m.body, '\u201cHi\u201d');
      assert.equal(m.encoding, 'UCS-2');
      assert.ok(m.expires_at && m.expires_at.getTime() > Date.now() + 3_000_000, 'the account’s validity');
    } finally {
      e.close();
      await put({ smartEncoding: true, validityPeriod: null });
    }
  });

  it('a later window from a number released or unverified since the relay opened is refused, and nothing written', async () => {
    const count = async () =>
      Number(
        (
          await smppd.svc.db.query<{ n: string }>(
            "SELECT count(*) AS n FROM messages WHERE account_id = $1 AND to_number LIKE '+1201555027%'",
            [s.acct.accountId],
          )
        ).rows[0].n,
      );
    const e = await smppd.bound('transmitter', s.cred);
    const number = (change: string) =>
      smppd.svc.db.query(`UPDATE phone_numbers SET ${change} WHERE account_id = $1 AND number = $2`, [
        s.acct.accountId,
        s.source,
      ]);
    const restore = () => number("verified = true, status = 'active'");
    try {
      for (const [k, change] of ['verified = false', "status = 'released'"].entries()) {
        // Accepted: the relay's next batch is written under the settings this one read.
        const open = await e.submit(submitParams(s.source, { destination_addr: `1201555027${k}` }));
        assert.equal(open.command_status, STATUS.ROK);
        await number(change);
        const answer = await e.submit(submitParams(s.source, { destination_addr: `1201555027${k + 5}` }));
        assert.equal(answer.command_status, STATUS.RINVSRCADR, change);
        await restore();
      }
      assert.equal(await count(), 2, 'the two accepted, none from the changed number');
      const again = await e.submit(submitParams(s.source, { destination_addr: '12015550279' }));
      assert.equal(again.command_status, STATUS.ROK);
      assert.equal(await count(), 3);
    } finally {
      e.close();
      await restore();
    }
  });

  it('a recipient whose contact another transaction creates meanwhile gets its one message, with that contact', async () => {
    const [first] = await window(240, 1);
    const submitted = (await get(`/jobs/${first.jobId}`)).submitted;
    const blocker = await smppd.svc.db.connect();
    let answer: Promise<{ command_status: number; message_id?: string }> | undefined;
    const e = await smppd.bound('transmitter', s.cred);
    try {
      await blocker.query('BEGIN');
      const { rows } = await blocker.query<{ id: string }>(
        `INSERT INTO contacts (account_id, id, mobile_number, mobile_country, mobile_valid)
         VALUES ($1, gen_random_uuid(), '+12015550241', 'US', true) RETURNING id`,
        [s.acct.accountId],
      );
      answer = e.submit(submitParams(s.source, { destination_addr: '12015550241' }));
      // The batch's statement waits for that contact's number, past its snapshot.
      await eventually(async () => {
        const { rows: waiting } = await smppd.svc.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH nc AS%'`,
        );
        return waiting[0].n > 0;
      });
      await blocker.query('COMMIT');
      const resp = await answer;
      assert.equal(resp.command_status, STATUS.ROK);
      const m = await get(`/messages/${resp.message_id}`);
      assert.equal(m.contact.id, rows[0].id);
      // Refused as a whole, the batch went one by one: a job of its own, the relay's unchanged.
      assert.notEqual(m.jobId, first.jobId);
      assert.equal((await get(`/jobs/${first.jobId}`)).submitted, submitted);
      const { rows: sent } = await smppd.svc.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND to_number = '+12015550241'`,
        [s.acct.accountId],
      );
      assert.equal(sent[0].n, 1);
    } finally {
      await blocker.query('ROLLBACK').catch(() => {});
      blocker.release();
      e.close();
      await answer?.catch(() => {});
    }
  });
});
