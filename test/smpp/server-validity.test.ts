import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { STATUS } from '../../src/smpp/status.ts';
import type { TestAccount, TestService } from '../helpers.ts';
import {
  submitParams as baseSubmitParams,
  type Credential,
  SERVER_OPTIONS,
  smppSuite,
} from '../support/smpp-suite.ts';

/** submit_sm's validity_period (SMPP 3.4 §7.1.1) becomes the message's validity (docs/encoding.md). */
describe('SMPP server: validity_period', () => {
  const smppd = smppSuite({ ...SERVER_OPTIONS, maxBindsPerCredential: 10 });
  let svc: TestService;
  let acct: TestAccount;
  let cred: Credential;
  let ourNumber: string;

  const bound = () => smppd.bound('transceiver', cred);
  const submitParams = (extra: Record<string, unknown> = {}) => baseSubmitParams(ourNumber, extra);

  before(async () => {
    svc = smppd.svc;
    acct = await svc.newAccount({ balance: 100 });
    cred = await smppd.issue(acct);
    ourNumber = await smppd.numberOf(acct);
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
