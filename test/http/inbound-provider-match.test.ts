import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { twilioSignature } from '../../src/providers/twilio/webhooks.ts';
import { addProviderNumber, body, call } from '../helpers.ts';
import { serviceWithAccount } from '../support/suite.ts';

const TWILIO_TOKEN = 'provider-match-token';

describe('inbound is accepted only for a number its provider serves', () => {
  const s = serviceWithAccount({ twilio: { ...loadConfig().twilio, authToken: TWILIO_TOKEN } });
  let twilioNumber: string;
  let smppNumber: string;
  let simulatorNumber: string;
  let seq = 0;
  const sender = () => `+1201555${String(4000 + seq++).padStart(4, '0')}`;

  before(async () => {
    twilioNumber = await addProviderNumber(s.svc.db, s.a.accountId, 'twilio');
    smppNumber = await addProviderNumber(s.svc.db, s.a.accountId, 'smpp');
    simulatorNumber = (
      await s.svc.db.query(
        `SELECT number FROM phone_numbers WHERE account_id = $1 AND provider = 'simulator' LIMIT 1`,
        [s.a.accountId],
      )
    ).rows[0].number;
  });

  const simulate = (from: string, to: string, text: string) =>
    call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', { json: { from, to, text } });
  const contact = async (mobile: string) =>
    (
      await s.svc.db.query('SELECT * FROM contacts WHERE account_id = $1 AND mobile_number = $2', [
        s.a.accountId,
        mobile,
      ])
    ).rows[0];
  const inboundCount = async (to: string) =>
    (
      await s.svc.db.query(
        'SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND to_number = $2 AND NOT outgoing',
        [s.a.accountId, to],
      )
    ).rows[0].n as number;

  it('refuses a forged simulator STOP to a Twilio-served number: 404, nothing stored, nobody opted out', async () => {
    const from = sender();
    const created = await call(s.svc.api, 'POST', `/v1/accounts/${s.a.accountId}/contacts`, {
      auth: s.a.auth,
      json: { mobile: from },
    });
    assert.equal(created.statusCode, 201, created.body);
    const res = await simulate(from, twilioNumber, 'STOP');
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(body(res).error.code, 'PROV-002');
    assert.equal(await inboundCount(twilioNumber), 0);
    assert.equal((await contact(from)).opted_out_at, null, 'the contact is not opted out');
    const optOuts = await s.svc.db.query(
      `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'contact-opt-out'`,
      [s.a.accountId],
    );
    assert.equal(optOuts.rows[0].n, 0);
  });

  it('refuses a simulated text to an SMPP-served number and creates no contact', async () => {
    const from = sender();
    const res = await simulate(from, smppNumber, 'hello');
    assert.equal(res.statusCode, 404);
    assert.equal(await inboundCount(smppNumber), 0);
    assert.equal(await contact(from), undefined);
  });

  it('still takes a simulated text to a simulator number', async () => {
    const res = await simulate(sender(), simulatorNumber, 'hello');
    assert.equal(res.statusCode, 200, res.body);
  });

  it('refuses a simulated call to a Twilio-served number and stores no call', async () => {
    const res = await call(s.svc.externals, 'POST', '/v1/providers/simulator/calls', {
      json: { from: sender(), to: twilioNumber },
    });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(body(res).error.code, 'PROV-002');
    const { rows } = await s.svc.db.query('SELECT count(*)::int AS n FROM calls WHERE account_id = $1', [
      s.a.accountId,
    ]);
    assert.equal(rows[0].n, 0);
  });

  it('refuses a correctly signed Twilio text to a number Twilio does not serve', async () => {
    const path = '/v1/providers/twilio/inbound';
    const params = {
      MessageSid: 'SMmatch1',
      AccountSid: 'AC1',
      From: sender(),
      To: simulatorNumber,
      Body: 'STOP',
    };
    const res = await call(s.svc.externals, 'POST', path, {
      payload: new URLSearchParams(params).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(TWILIO_TOKEN, `${s.svc.config.externalsUrl}${path}`, params),
      },
    });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(await contact(params.From), undefined);
  });
});
