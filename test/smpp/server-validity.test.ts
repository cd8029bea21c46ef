import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { activeAccountNumbers } from '../../src/db/queries/phone-numbers.ts';
import { SmppServer } from '../../src/smpp/server.ts';
import { STATUS } from '../../src/smpp/status.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { TestEsme } from '../support/esme.ts';

/** submit_sm's validity_period (SMPP 3.4 §7.1.1) becomes the message's validity (docs/encoding.md). */
describe('SMPP server: validity_period', () => {
  let svc: TestService;
  let server: SmppServer;
  let port: number;
  let acct: TestAccount;
  let cred: { systemId: string; password: string };
  let ourNumber: string;
  const esmes: TestEsme[] = [];

  const bound = async () => {
    const e = await TestEsme.connect(port);
    esmes.push(e);
    const resp = await e.bind('transceiver', cred.systemId, cred.password);
    assert.equal(resp.command_status, 0, 'bind');
    return e;
  };
  const submitParams = (extra: Record<string, unknown> = {}) => ({
    source_addr: ourNumber.slice(1),
    source_addr_ton: 1,
    source_addr_npi: 1,
    destination_addr: '12015550123',
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    data_coding: 0,
    short_message: Buffer.from('Hello from an ESME'),
    ...extra,
  });

  before(async () => {
    svc = await startTestService();
    server = new SmppServer(svc.db, {
      pollMs: 20,
      window: 5,
      maxBindsPerCredential: 10,
      bindLimits: { failuresPerSystemId: 4, failuresPerIp: 1000 },
    });
    port = await server.listen(0, '127.0.0.1');
    acct = await svc.newAccount({ balance: 100 });
    const res = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/smpp/credentials`, {
      auth: acct.auth,
      json: {},
    });
    assert.equal(res.statusCode, 200, res.body);
    cred = body(res).data;
    ourNumber = (await activeAccountNumbers(svc.db, acct.accountId))[0].number;
  });
  after(async () => {
    for (const e of esmes) e.close();
    await server.close();
    await svc.close();
  });

  it('takes validity_period in the relative and the absolute format as the message validity, and refuses a bad one', async () => {
    const e = await bound();
    const validity = async (id: string) => {
      const { rows } = await svc.db.query(
        'SELECT expires_at, created_at FROM messages WHERE account_id = $1 AND id = $2',
        [acct.accountId, id],
      );
      return rows[0] as { expires_at: Date | null; created_at: Date };
    };
    // Relative: ten minutes from the submission.
    const rel = await e.submit(
      submitParams({ destination_addr: '12015550161', validity_period: '000000001000000R' }),
    );
    assert.equal(rel.command_status, 0);
    const r = await validity(String(rel.message_id));
    const seconds = ((r.expires_at as Date).getTime() - r.created_at.getTime()) / 1000;
    assert.ok(seconds > 590 && seconds <= 601, `relative: ${seconds} s`);
    // Absolute, in local time one hour ahead of UTC (04+: four quarter hours), an hour from now.
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    const local = new Date(at.getTime() + 3_600_000);
    const two = (n: number) => String(n).padStart(2, '0');
    const text =
      `${two(local.getUTCFullYear() % 100)}${two(local.getUTCMonth() + 1)}${two(local.getUTCDate())}` +
      `${two(local.getUTCHours())}${two(local.getUTCMinutes())}${two(local.getUTCSeconds())}004+`;
    const abs = await e.submit(submitParams({ destination_addr: '12015550162', validity_period: text }));
    assert.equal(abs.command_status, 0, text);
    const a = await validity(String(abs.message_id));
    assert.ok(
      Math.abs((a.expires_at as Date).getTime() - at.getTime()) <= 2000,
      `absolute ${text}: ${a.expires_at}`,
    );
    // None given: no validity (the account has no default).
    const none = await e.submit(submitParams({ destination_addr: '12015550163' }));
    assert.equal((await validity(String(none.message_id))).expires_at, null);
    // Not a time, or a time already past: ESME_RINVEXPIRY, nothing sent.
    for (const bad of ['garbage', '200101000000000+'])
      assert.equal(
        (await e.submit(submitParams({ destination_addr: '12015550164', validity_period: bad })))
          .command_status,
        STATUS.RINVEXPIRY,
        bad,
      );
    const { rows } = await svc.db.query(
      "SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND to_number = '+12015550164'",
      [acct.accountId],
    );
    assert.equal(rows[0].n, 0);
  });
});
