import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import smpp from 'smpp';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { SmppServer } from '../../src/smpp/server.ts';
import { STATUS } from '../../src/smpp/status.ts';
import { newId } from '../../src/util/ids.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { RawClient, rawPdu, TestEsme } from '../support/esme.ts';
import { smppSuite } from '../support/smpp-suite.ts';

/**
 * The SMPP server's sessions beyond one bind's PDUs (test/smpp/server.test.ts): connection limits,
 * TLS, the credentials API, and submissions that arrive together.
 */
describe('SMPP server limits on connections', () => {
  const smppd = smppSuite({ maxBindsPerCredential: 2, enquireLinkMs: 200, bindTimeoutMs: 2000 });

  it('refuses a bind past the most a credential may have open with ESME_RBINDFAIL', async () => {
    const c = await smppd.issue(await smppd.svc.newAccount());
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const e = await smppd.connect();
      statuses.push((await e.bind('transmitter', c.systemId, c.password)).command_status);
    }
    assert.deepEqual(statuses, [0, 0, STATUS.RBINDFAIL]);
  });

  it('closes a connection that never binds, and a bound one that stops answering enquire_link', async () => {
    const idle = await RawClient.connect(smppd.port);
    await eventually(async () => idle.ended);
    const c = await smppd.issue(await smppd.svc.newAccount());
    const mute = await RawClient.connect(smppd.port);
    mute.write(
      new smpp.PDU('bind_transceiver', {
        sequence_number: 1,
        system_id: c.systemId,
        password: c.password,
      }).toBuffer(),
    );
    // Bound, then silent: the server asks (enquire_link, command id 0x15) and, unanswered, hangs up.
    await eventually(async () => mute.ended);
    const seen = mute.headers();
    assert.equal(seen[0].status, 0, 'bound');
    assert.ok(
      seen.some((h) => h.id === 0x15),
      'an enquire_link was sent',
    );
  });
});

describe('SMPP server over TLS', () => {
  let svc: TestService;
  let dir: string;

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(path.join(os.tmpdir(), 'sparrow-smpp-tls-'));
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('needs SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY together', () => {
    assert.throws(() => loadConfig({ SMPP_SERVER_TLS_CERT: '/x.pem' }), ConfigError);
    assert.throws(() => loadConfig({ SMPP_SERVER_TLS_KEY: '/x.pem' }), ConfigError);
    assert.equal(loadConfig({}).smppServer.port, 0, 'off by default');
  });

  it('speaks TLS when a certificate is configured, and plain SMPP is not answered', async (t) => {
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ]);
    if (made.error || made.status !== 0) {
      t.skip('openssl is not available to make a test certificate');
      return;
    }
    const server = new SmppServer(svc.db, svc.ctx.config, { tlsCert: cert, tlsKey: key });
    const port = await server.listen(0, '127.0.0.1');
    try {
      const a = await svc.newAccount();
      const c = body(
        await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/smpp/credentials`, {
          auth: a.auth,
          json: {},
        }),
      ).data;
      const esme = await TestEsme.connect(port, true);
      assert.equal((await esme.bind('transceiver', c.systemId, c.password)).command_status, 0);
      assert.equal((await esme.request('enquire_link')).command_status, 0);
      esme.close();
      // Plain bytes are a failed handshake: no SMPP answer, the connection is closed.
      const raw = await RawClient.connect(port);
      raw.write(rawPdu(16, 0x15, 1));
      await eventually(async () => raw.ended);
      assert.equal(raw.headers().length, 0);
    } finally {
      await server.close();
    }
  });
});

describe('/v1/accounts/{accountId}/smpp/credentials', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  const path = (acct: TestAccount) => `/v1/accounts/${acct.accountId}/smpp/credentials`;

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    b = await svc.newAccount();
  });
  after(async () => svc.close());

  it('issues a credential whose password is shown once and stored hashed', async () => {
    const res = await call(svc.api, 'POST', path(a), {
      auth: a.auth,
      json: { name: 'Bank', throughput: 20 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const c = body(res).data;
    assert.match(c.systemId, /^sp[a-z0-9]{10}$/);
    assert.match(c.password, /^[A-Za-z0-9]{8}$/);
    assert.equal(c.throughput, 20);
    assert.equal(c.name, 'Bank');
    const { rows } = await svc.db.query('SELECT password_hash FROM smpp_credentials WHERE id = $1', [c.id]);
    assert.match(rows[0].password_hash, /^scrypt\$/);
    assert.ok(!rows[0].password_hash.includes(c.password));
    const one = body(await call(svc.api, 'GET', `${path(a)}/${c.id}`, { auth: a.auth })).data;
    assert.equal(one.password, undefined);
    assert.equal(one.systemId, c.systemId);
    const list = body(await call(svc.api, 'GET', path(a), { auth: a.auth }));
    assert.ok(
      list.data.some((x: { id: string; password?: string }) => x.id === c.id && x.password === undefined),
    );
    assert.equal(list.pagination.totalCount, list.data.length);
  });

  it('answers 401 without a token and 403 without the smpp scopes', async () => {
    assert.equal((await call(svc.api, 'GET', path(a))).statusCode, 401);
    const narrow = await svc.newAccount({ scopes: ['messages:send', 'messages:read'] });
    assert.equal(
      (await call(svc.api, 'POST', path(narrow), { auth: narrow.auth, json: {} })).statusCode,
      403,
    );
    assert.equal((await call(svc.api, 'GET', path(narrow), { auth: narrow.auth })).statusCode, 403);
  });

  it('answers 400 to a bad throughput or name, and to hostile values', async () => {
    for (const json of [
      { throughput: 0 },
      { throughput: 1.5 },
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: { $gt: '' } },
    ]) {
      const res = await call(svc.api, 'POST', path(a), { auth: a.auth, json });
      assert.equal(res.statusCode, 400, JSON.stringify(json));
      assert.equal(body(res).success, false);
    }
  });

  it("answers 404 for another account's credential, an unknown id and a malformed id", async () => {
    const c = body(await call(svc.api, 'POST', path(b), { auth: b.auth, json: {} })).data;
    for (const id of [c.id, newId(), 'not-an-id']) {
      const get = await call(svc.api, 'GET', `${path(a)}/${id}`, { auth: a.auth });
      assert.equal(get.statusCode, 404, id);
      assert.equal(body(get).error.code, 'SMPP-001');
      const del = await call(svc.api, 'DELETE', `${path(a)}/${id}`, { auth: a.auth });
      assert.equal(del.statusCode, 404, id);
    }
    // b's credential survived a's attempts.
    assert.equal((await call(svc.api, 'GET', `${path(b)}/${c.id}`, { auth: b.auth })).statusCode, 200);
    assert.equal((await call(svc.api, 'GET', path(b), { auth: a.auth })).statusCode, 403);
  });
});

describe('SMPP server: submissions that arrive together', () => {
  const smppd = smppSuite({ window: 200, maxBindsPerCredential: 10 });

  const setUp = async (balance: number) => {
    const a = await smppd.svc.newAccount({ balance });
    const e = await smppd.bound('transmitter', await smppd.issue(a, { throughput: 10_000 }));
    const source = (await smppd.numberOf(a)).slice(1);
    return { a, e, source };
  };
  const get = async (a: TestAccount, id: string) => {
    const res = await call(smppd.svc.api, 'GET', `/v1/accounts/${a.accountId}/messages/${id}`, {
      auth: a.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };

  it('answers each of many concurrent submit_sm its own id, for a message of its own text and recipient', async () => {
    const { a, e, source } = await setUp(100);
    // 80 at once; two of them to a number another also goes to (each is still a message).
    const to = (i: number) => `1201555${String(1000 + (i === 79 ? 0 : i === 78 ? 1 : i)).padStart(4, '0')}`;
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        e.submit({
          source_addr: source,
          source_addr_ton: 1,
          destination_addr: to(i),
          dest_addr_ton: 1,
          data_coding: 0,
          short_message: Buffer.from(`Code ${i}`),
        }),
      ),
    );
    assert.deepEqual(
      answers.map((r) => r.command_status),
      answers.map(() => 0),
    );
    const ids = answers.map((r) => String(r.message_id));
    assert.equal(new Set(ids).size, 80);
    for (const [i, id] of ids.entries()) {
      const m = await get(a, id);
      assert.equal(m.message ?? m.body, `Code ${i}`);
      assert.equal(m.to ?? m.contact?.mobile?.number, `+${to(i)}`);
    }
    // Charged once per message: 80 US segments.
    const { rows } = await smppd.svc.db.query<{ balance: string }>(
      'SELECT balance FROM accounts WHERE id = $1',
      [a.accountId],
    );
    assert.equal(Math.round((100 - Number(rows[0].balance)) * 10_000), 80 * 79);
  });

  it('answers ESME_RSUBMITFAIL to the submissions the balance cannot cover and sends the others', async () => {
    const { a, e, source } = await setUp(0.0079 * 3);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        e.submit({
          source_addr: source,
          source_addr_ton: 1,
          destination_addr: `1201555${2000 + i}`,
          dest_addr_ton: 1,
          data_coding: 0,
          short_message: Buffer.from(`Paid ${i}`),
        }),
      ),
    );
    const statuses = answers.map((r) => r.command_status).sort();
    assert.deepEqual(statuses, [0, 0, 0, STATUS.RSUBMITFAIL, STATUS.RSUBMITFAIL, STATUS.RSUBMITFAIL]);
    const list = await call(smppd.svc.api, 'GET', `/v1/accounts/${a.accountId}/messages`, { auth: a.auth });
    const sent = answers.filter((r) => r.command_status === 0).map((r) => String(r.message_id));
    assert.deepEqual(
      body(list)
        .data.map((m: { id: string }) => m.id)
        .sort(),
      sent.sort(),
    );
  });

  it('records a submission to an opted-out contact as a failed, uncharged message, and answers it an id', async () => {
    const { a, e, source } = await setUp(10);
    const made = await call(smppd.svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile: { number: '+12015553001' } },
    });
    assert.equal(made.statusCode, 201, made.body);
    await smppd.svc.db.query('UPDATE contacts SET opted_out_at = now() WHERE account_id = $1 AND id = $2', [
      a.accountId,
      body(made).data[0].id,
    ]);
    const answers = await Promise.all(
      ['12015553001', '12015553002'].map((destination_addr) =>
        e.submit({
          source_addr: source,
          source_addr_ton: 1,
          destination_addr,
          dest_addr_ton: 1,
          data_coding: 0,
          short_message: Buffer.from('Hello'),
        }),
      ),
    );
    assert.deepEqual(
      answers.map((r) => r.command_status),
      [0, 0],
    );
    const [out, ok] = await Promise.all(answers.map((r) => get(a, String(r.message_id))));
    assert.equal(out.status, 'failed');
    assert.equal(out.error?.code, 'CONT-010');
    assert.notEqual(ok.status, 'failed');
  });

  it('opens no conversation for a submission (a relay); the recipient’s reply opens it, with the contact the submission made', async () => {
    const { a, e, source } = await setUp(10);
    const answers = await Promise.all(
      ['12015554001', '12015554002'].map((destination_addr) =>
        e.submit({
          source_addr: source,
          source_addr_ton: 1,
          destination_addr,
          dest_addr_ton: 1,
          data_coding: 0,
          short_message: Buffer.from('Your code is 1234'),
        }),
      ),
    );
    assert.deepEqual(
      answers.map((r) => r.command_status),
      [0, 0],
    );
    const sent = await get(a, String(answers[0].message_id));
    assert.equal(sent.conversation, undefined, 'the message has no conversation');
    const conversations = async () =>
      body(await call(smppd.svc.api, 'GET', `/v1/accounts/${a.accountId}/conversations`, { auth: a.auth }))
        .data as { id: string; contact: { id: string } }[];
    assert.deepEqual(await conversations(), []);
    const contacts = await smppd.svc.db.query<{ id: string; mobile_number: string }>(
      'SELECT id, mobile_number FROM contacts WHERE account_id = $1 ORDER BY mobile_number',
      [a.accountId],
    );
    assert.deepEqual(
      contacts.rows.map((c) => c.mobile_number),
      ['+12015554001', '+12015554002'],
      'each new recipient became a contact',
    );
    const reply = await call(smppd.svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+12015554001', to: `+${source}`, text: 'Thanks' },
    });
    assert.equal(reply.statusCode, 200, reply.body);
    const opened = await conversations();
    assert.equal(opened.length, 1);
    assert.equal(opened[0].id, body(reply).data.conversationId);
    assert.equal(opened[0].contact.id, contacts.rows[0].id);
  });
});
