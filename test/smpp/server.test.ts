import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import type { SmppServer } from '../../src/smpp/server.ts';
import { STATUS } from '../../src/smpp/status.ts';
import { newId } from '../../src/util/ids.ts';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import {
  submitParams as baseSubmitParams,
  type Credential,
  receiptText,
  SERVER_OPTIONS,
  smppSuite,
} from '../support/smpp-suite.ts';

/**
 * The SMPP server's binds and submissions (delivery to receivers: server-deliver.test.ts; malformed
 * PDUs: server-frames.test.ts; connection limits, TLS, credentials: server-sessions.test.ts).
 */
const RECEIPT =
  /^id:(\S+) sub:001 dlvrd:(\d{3}) submit date:\d{10} done date:\d{10} stat:([A-Z]+) err:(\d{3}) text:(.*)$/s;

describe('SMPP server', () => {
  const smppd = smppSuite(SERVER_OPTIONS, { workers: true });
  const { connect, issue } = smppd;
  let svc: TestService;
  let server: SmppServer;
  let acct: TestAccount;
  let cred: Credential;
  let ourNumber: string;

  const bound = (mode: 'transmitter' | 'receiver' | 'transceiver', c: Credential = cred) =>
    smppd.bound(mode, c);
  const message = async (a: TestAccount, id: string) => {
    const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages/${id}`, { auth: a.auth });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };
  const submitParams = (extra: Record<string, unknown> = {}) => baseSubmitParams(ourNumber, extra);

  before(async () => {
    ({ svc, server } = smppd);
    acct = await svc.newAccount({ balance: 100 });
    cred = await issue(acct);
    ourNumber = await smppd.numberOf(acct);
  });
  // A receipt goes to any receiver of the account: each test's ESMEs go away with it.
  afterEach(async () => {
    for (const e of smppd.esmes.splice(0)) e.close();
    await eventually(async () => server.boundSessions.length === 0);
  });

  describe('bind', () => {
    it('refuses an unknown system_id with ESME_RINVSYSID and a wrong password with ESME_RINVPASWD', async () => {
      const e = await connect();
      assert.equal((await e.bind('transceiver', 'nosuchid', 'x')).command_status, STATUS.RINVSYSID);
      assert.equal((await e.bind('transceiver', cred.systemId, 'wrong')).command_status, STATUS.RINVPASWD);
      // The session is still open and can bind with the right password.
      assert.equal((await e.bind('transceiver', cred.systemId, cred.password)).command_status, 0);
    });

    it('answers a second bind on one connection with ESME_RALYBND', async () => {
      const e = await bound('transmitter');
      assert.equal((await e.bind('receiver', cred.systemId, cred.password)).command_status, STATUS.RALYBND);
    });

    it('locks a system_id out after repeated failures, even for the right password', async () => {
      const other = await issue(acct, { name: 'lockout' });
      const e = await connect();
      for (let i = 0; i < 4; i++)
        assert.equal((await e.bind('transmitter', other.systemId, 'bad')).command_status, STATUS.RINVPASWD);
      const checks = server.auth.hashChecks;
      assert.equal(
        (await e.bind('transmitter', other.systemId, other.password)).command_status,
        STATUS.RBINDFAIL,
      );
      assert.equal(server.auth.hashChecks, checks, 'no scrypt once locked');
    });

    it('answers submit_sm before a bind, and from a receiver, with ESME_RINVBNDSTS', async () => {
      const e = await connect();
      assert.equal((await e.submit(submitParams())).command_status, STATUS.RINVBNDSTS);
      const r = await bound('receiver');
      assert.equal((await r.submit(submitParams())).command_status, STATUS.RINVBNDSTS);
    });

    it('answers enquire_link and unbind', async () => {
      const e = await bound('transmitter');
      const link = await e.request('enquire_link');
      assert.equal(link.command, 'enquire_link_resp');
      assert.equal(link.command_status, 0);
      const un = await e.request('unbind');
      assert.equal(un.command, 'unbind_resp');
      await eventually(async () => e.closed);
    });

    it('closes the binds of a deleted credential', async () => {
      const c = await issue(acct, { name: 'to delete' });
      const e = await bound('transceiver', c);
      const res = await call(svc.api, 'DELETE', `/v1/accounts/${acct.accountId}/smpp/credentials/${c.id}`, {
        auth: acct.auth,
      });
      assert.equal(res.statusCode, 204);
      await eventually(async () => e.closed);
      const again = await connect();
      assert.equal(
        (await again.bind('transceiver', c.systemId, c.password)).command_status,
        STATUS.RINVSYSID,
      );
    });
  });

  describe('submit_sm', () => {
    it('sends through the API send path and answers the message id; the receipt comes back as deliver_sm', async () => {
      const e = await bound('transceiver');
      const resp = await e.submit(submitParams({ registered_delivery: 1 }));
      assert.equal(resp.command_status, 0);
      const id = String(resp.message_id);
      const m = await message(acct, id);
      assert.equal(m.message ?? m.body ?? m.text, 'Hello from an ESME');
      assert.equal(m.to ?? m.contact?.mobile?.number ?? m.contact?.mobile, '+12015550123');
      const receipt = await eventually(async () =>
        e.delivered.find((p) => Number(p.esm_class) === 0x04 && p.receipted_message_id === id),
      );
      const match = RECEIPT.exec(receiptText(receipt));
      assert.ok(match, receiptText(receipt));
      assert.deepEqual([match[1], match[2], match[3], match[4]], [id, '001', 'DELIVRD', '000']);
      assert.equal(match[5], 'Hello from an ESME');
      assert.equal(receipt.message_state, 2);
      assert.equal(receipt.source_addr, '12015550123');
      assert.equal(receipt.destination_addr, ourNumber.slice(1));
      assert.equal((await message(acct, id)).status, 'delivered');
    });

    it("answers query_sm with a message's state, and ESME_RQUERYFAIL for an id the account did not send", async () => {
      const e = await bound('transmitter');
      const resp = await e.submit(submitParams({ destination_addr: '12015550151' }));
      const id = String(resp.message_id);
      await eventually(async () => (await message(acct, id)).status === 'delivered');
      const q = await e.request('query_sm', { message_id: id, source_addr: ourNumber.slice(1) });
      assert.equal(q.command_status, 0);
      assert.equal(q.message_id, id);
      assert.equal(q.message_state, 2);
      assert.ok(q.final_date, 'a final date');
      const other = await svc.newAccount({ balance: 10 });
      const foreign = await call(svc.api, 'POST', `/v1/accounts/${other.accountId}/messages`, {
        auth: other.auth,
        json: { contacts: [{ mobile: { number: '+12015550152' } }], template: 'theirs' },
      });
      const foreignId = body(foreign).data.messages[0].id;
      for (const message_id of [newId(), 'S123', foreignId]) {
        const r = await e.request('query_sm', { message_id, source_addr: ourNumber.slice(1) });
        assert.equal(r.command_status, STATUS.RQUERYFAIL, message_id);
      }
    });

    it('refuses a source address that is not one of the account numbers with ESME_RINVSRCADR', async () => {
      const e = await bound('transmitter');
      for (const source_addr of ['12015559999', 'ACME']) {
        const resp = await e.submit(submitParams({ source_addr }));
        assert.equal(resp.command_status, STATUS.RINVSRCADR, source_addr);
      }
    });

    it('refuses another account’s number, and its own number once unverified or released', async () => {
      const other = await svc.newAccount({ balance: 10 });
      const theirs = await smppd.numberOf(other);
      const e = await bound('transmitter');
      assert.equal(
        (await e.submit(submitParams({ source_addr: theirs.slice(1) }))).command_status,
        STATUS.RINVSRCADR,
      );
      const mine = await svc.db.query<{ id: string }>(
        'SELECT id FROM phone_numbers WHERE account_id = $1 AND number = $2',
        [acct.accountId, ourNumber],
      );
      const id = mine.rows[0].id;
      try {
        for (const change of ['verified = false', "status = 'released'"]) {
          await svc.db.query(`UPDATE phone_numbers SET ${change} WHERE id = $1`, [id]);
          assert.equal((await e.submit(submitParams())).command_status, STATUS.RINVSRCADR, change);
          await svc.db.query(`UPDATE phone_numbers SET verified = true, status = 'active' WHERE id = $1`, [
            id,
          ]);
        }
        // Restored, it sends again.
        assert.equal((await e.submit(submitParams())).command_status, 0);
      } finally {
        await svc.db.query(`UPDATE phone_numbers SET verified = true, status = 'active' WHERE id = $1`, [id]);
      }
    });

    it('refuses an invalid destination with ESME_RINVDSTADR and an unknown data coding with ESME_RINVDCS', async () => {
      const e = await bound('transmitter');
      assert.equal(
        (await e.submit(submitParams({ destination_addr: '123' }))).command_status,
        STATUS.RINVDSTADR,
      );
      assert.equal((await e.submit(submitParams({ data_coding: 4 }))).command_status, STATUS.RINVDCS);
    });

    it('answers ESME_RSUBMITFAIL when the balance cannot cover the message, and sends nothing', async () => {
      const poor = await svc.newAccount({ balance: 0 });
      const c = await issue(poor);
      const number = await smppd.numberOf(poor);
      const e = await bound('transmitter', c);
      const resp = await e.submit(submitParams({ source_addr: number.slice(1) }));
      assert.equal(resp.command_status, STATUS.RSUBMITFAIL);
      const list = await call(svc.api, 'GET', `/v1/accounts/${poor.accountId}/messages`, { auth: poor.auth });
      assert.equal(body(list).data.length, 0);
    });

    it('reads GSM-7 (with an extension character), Latin-1 and UCS-2 texts', async () => {
      const e = await bound('transmitter');
      const cases: [number, Buffer, string][] = [
        [0, Buffer.from([0x48, 0x69, 0x20, 0x1b, 0x65, 0x35, 0x20, 0x00]), 'Hi €5 @'],
        [3, Buffer.from('café olé', 'latin1'), 'café olé'],
        [8, Buffer.from('Привет 😀', 'utf16le').swap16(), 'Привет 😀'],
      ];
      for (const [data_coding, short_message, text] of cases) {
        const resp = await e.submit(submitParams({ data_coding, short_message }));
        assert.equal(resp.command_status, 0);
        const m = await message(acct, String(resp.message_id));
        assert.equal(m.message ?? m.body, text, `data_coding ${data_coding}`);
      }
    });

    it('joins the parts of a UDH-concatenated message into one message, with a receipt for each part id', async () => {
      const e = await bound('transceiver');
      const udh = (i: number) => Buffer.from([0x05, 0x00, 0x03, 0x2a, 2, i]);
      const first = await e.submit(
        submitParams({
          esm_class: 0x40,
          registered_delivery: 1,
          short_message: Buffer.concat([udh(1), Buffer.from('First half, ')]),
        }),
      );
      const second = await e.submit(
        submitParams({
          esm_class: 0x40,
          registered_delivery: 1,
          short_message: Buffer.concat([udh(2), Buffer.from('second half.')]),
        }),
      );
      assert.equal(first.command_status, 0);
      assert.equal(second.command_status, 0);
      assert.notEqual(first.message_id, second.message_id);
      const m = await message(acct, String(second.message_id));
      assert.equal(m.message ?? m.body, 'First half, second half.');
      for (const id of [first.message_id, second.message_id])
        await eventually(async () => e.delivered.find((p) => p.receipted_message_id === id));
    });

    it('takes a long text from message_payload', async () => {
      const e = await bound('transmitter');
      const text = 'x'.repeat(300);
      const resp = await e.submit(
        submitParams({ short_message: Buffer.alloc(0), message_payload: Buffer.from(text) }),
      );
      assert.equal(resp.command_status, 0);
      const m = await message(acct, String(resp.message_id));
      assert.equal(m.message ?? m.body, text);
      assert.equal(m.segments, 2);
    });

    it('refuses a blank text with ESME_RINVMSGLEN, alone and within a window, and sends the others of that window', async () => {
      const e = await bound('transmitter');
      const lone = await e.submit(
        submitParams({ destination_addr: '12015550131', short_message: Buffer.from('   ') }),
      );
      assert.equal(lone.command_status, STATUS.RINVMSGLEN);
      const answers = await Promise.all(
        ['Before', '    ', 'After'].map((text, n) =>
          e.submit(
            submitParams({ destination_addr: `120155501${32 + n}`, short_message: Buffer.from(text) }),
          ),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.command_status),
        [0, STATUS.RINVMSGLEN, 0],
      );
      assert.equal((await message(acct, String(answers[2].message_id))).message, 'After');
    });

    it('records a window of submit_sm in send jobs with their counts, source text and author', async () => {
      const e = await bound('transmitter');
      const answers = await Promise.all(
        [41, 42, 43, 44, 45].map((n) =>
          e.submit(
            submitParams({ destination_addr: `120155501${n}`, short_message: Buffer.from(`Window ${n}`) }),
          ),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.command_status),
        [0, 0, 0, 0, 0],
      );
      const messages = await Promise.all(answers.map((a) => message(acct, String(a.message_id))));
      const byJob = new Map<string, string[]>();
      for (const m of messages) byJob.set(m.jobId, [...(byJob.get(m.jobId) ?? []), m.message]);
      let seen = 0;
      for (const [jobId, texts] of byJob) {
        const res = await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/jobs/${jobId}`, {
          auth: acct.auth,
        });
        assert.equal(res.statusCode, 200, res.body);
        const job = body(res).data;
        assert.equal(job.id, jobId);
        // A relay job (src/smpp/batcher.ts) holds this window's messages and the credential's
        // earlier ones: its counts are all of them, its text the first one's.
        const { rows } = await svc.db.query(
          `SELECT j.template, count(m.id)::int AS messages, count(m.id) FILTER (WHERE m.status = 'failed')::int AS failed,
                  (array_agg(m.body ORDER BY m.id))[1] AS first
             FROM send_jobs j JOIN messages m ON m.account_id = j.account_id AND m.job_id = j.id
            WHERE j.account_id = $1 AND j.id = $2 GROUP BY j.template`,
          [acct.accountId, jobId],
        );
        assert.equal(job.submitted, rows[0].messages);
        assert.equal(job.failures, rows[0].failed);
        assert.ok(job.submitted >= texts.length);
        assert.equal(rows[0].template, rows[0].first);
        assert.equal(job.created.by.id, cred.id);
        seen += texts.length;
      }
      assert.equal(seen, 5);
    });

    it('sends submit_multi to each valid destination and lists the invalid ones', async () => {
      const e = await bound('transmitter');
      const resp = await e.request('submit_multi', {
        source_addr: ourNumber.slice(1),
        source_addr_ton: 1,
        dest_address: [
          { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '12015550131' },
          { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '12015550132' },
          { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: '99' },
        ],
        data_coding: 0,
        short_message: Buffer.from('To many'),
      });
      assert.equal(resp.command_status, 0);
      assert.deepEqual(
        (resp.unsuccess_sme as { destination_addr: string; error_status_code: number }[]).map((u) => [
          u.destination_addr,
          u.error_status_code,
        ]),
        [['99', STATUS.RINVDSTADR]],
      );
      const m = await message(acct, String(resp.message_id));
      const job = await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/messages?jobId=${m.jobId}`, {
        auth: acct.auth,
      });
      assert.equal(body(job).data.length, 2);
    });

    it('answers ESME_RTHROTTLED over the credential throughput and ESME_RMSGQFUL over the window', async () => {
      // An account of its own: what this sends would hold up the others' messages at the sender's pace.
      const other = await svc.newAccount({ balance: 100 });
      const params = submitParams({
        source_addr: (await smppd.numberOf(other)).slice(1),
      });
      const slow = await issue(other, { throughput: 1 });
      const e = await bound('transmitter', slow);
      const answers = await Promise.all([1, 2, 3, 4].map(() => e.submit(params)));
      const statuses = answers.map((a) => a.command_status);
      assert.ok(statuses.includes(0), String(statuses));
      assert.ok(statuses.includes(STATUS.RTHROTTLED), String(statuses));

      const fast = await issue(other, { throughput: 1000 });
      const f = await bound('transmitter', fast);
      const many = await Promise.all(Array.from({ length: 12 }, () => f.submit(params)));
      const st = many.map((a) => a.command_status);
      assert.ok(st.includes(STATUS.RMSGQFUL), String(st));
      assert.ok(st.includes(0), String(st));
    });
  });
});
