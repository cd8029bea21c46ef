import assert from 'node:assert/strict';
import { afterEach, before, describe, it } from 'node:test';
import { receiveMessage } from '../../src/domain/inbound/receive-message.ts';
import { STATUS } from '../../src/smpp/status.ts';
import { newId } from '../../src/util/ids.ts';
import { task } from '../../src/workers/index.ts';
import { body, call, eventually, type TestAccount } from '../helpers.ts';
import {
  type Credential,
  receiptText,
  SERVER_OPTIONS,
  smppSuite,
  submitParams,
} from '../support/smpp-suite.ts';

const smppOutboxExpiry = task('smpp-outbox-expiry');

/** What the SMPP server delivers to bound receivers: receipts (kept, redelivered, expired) and inbound texts. */
describe('SMPP server: deliver_sm', () => {
  const smppd = smppSuite(SERVER_OPTIONS, { workers: true });
  let acct: TestAccount;
  let cred: Credential;
  let ourNumber: string;

  const bound = (mode: 'transmitter' | 'receiver' | 'transceiver') => smppd.bound(mode, cred);
  const status = async (id: string) => {
    const res = await call(smppd.svc.api, 'GET', `/v1/accounts/${acct.accountId}/messages/${id}`, {
      auth: acct.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data.status;
  };

  before(async () => {
    acct = await smppd.svc.newAccount({ balance: 100 });
    cred = await smppd.issue(acct);
    ourNumber = await smppd.numberOf(acct);
  });
  // A receipt goes to any receiver of the account: each test's ESMEs go away with it.
  afterEach(async () => {
    for (const e of smppd.esmes.splice(0)) e.close();
    await eventually(async () => smppd.server.boundSessions.length === 0);
  });

  it('keeps receipts while no receiver is bound and delivers them when one binds', async () => {
    const tx = await bound('transmitter');
    const resp = await tx.submit(
      submitParams(ourNumber, { registered_delivery: 1, destination_addr: '12015550141' }),
    );
    const id = String(resp.message_id);
    await eventually(async () => (await status(id)) === 'delivered');
    const rx = await bound('receiver');
    const receipt = await eventually(async () => rx.delivered.find((p) => p.receipted_message_id === id));
    assert.match(receiptText(receipt), /stat:DELIVRD/);
  });

  it('redelivers a receipt the ESME answered with a temporary error', async () => {
    const rx = await bound('transceiver');
    rx.deliverStatus = STATUS.RX_T_APPN;
    const resp = await rx.submit(
      submitParams(ourNumber, { registered_delivery: 1, destination_addr: '12015550142' }),
    );
    const id = String(resp.message_id);
    await eventually(async () => rx.delivered.some((p) => p.receipted_message_id === id));
    const { rows } = await smppd.svc.db.query('SELECT 1 FROM smpp_outbox WHERE message_id = $1', [id]);
    assert.equal(rows.length, 1, 'still queued');
  });

  it('drops what no receiver took within SMPP_SERVER_KEEP_HOURS, and keeps the rest', async () => {
    const fresh = newId();
    const old = newId();
    await smppd.svc.db.query(
      `INSERT INTO smpp_outbox (account_id, id, kind, message_id, created_at)
       VALUES ($1, $2, 'inbound', $4, now()), ($1, $3, 'inbound', $4, now() - interval '73 hours')`,
      [acct.accountId, fresh, old, newId()],
    );
    await smppOutboxExpiry.run(smppd.svc.ctx, new AbortController().signal);
    const { rows } = await smppd.svc.db.query('SELECT id FROM smpp_outbox WHERE id = ANY ($1::uuid[])', [
      [fresh, old],
    ]);
    assert.deepEqual(
      rows.map((r) => r.id),
      [fresh],
    );
    await smppd.svc.db.query('DELETE FROM smpp_outbox WHERE id = $1', [fresh]);
  });

  it('sends texts to the account numbers to its bound receivers', async () => {
    const rx = await bound('receiver');
    await receiveMessage(smppd.svc.ctx, {
      provider: 'simulator',
      providerMessageId: `sim-${newId()}`,
      from: '+12015550177',
      to: ourNumber,
      text: 'Hi there, Grüße',
      media: [],
      at: new Date(),
    });
    const pdu = await eventually(async () => rx.delivered.find((p) => Number(p.esm_class) === 0));
    assert.equal(pdu.source_addr, '12015550177');
    assert.equal(pdu.destination_addr, ourNumber.slice(1));
    const sm = pdu.short_message as { message: string };
    assert.equal(sm.message, 'Hi there, Grüße');
  });
});
