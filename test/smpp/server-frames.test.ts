import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import smpp from 'smpp';
import { STATUS } from '../../src/smpp/status.ts';
import { eventually } from '../helpers.ts';
import { RawClient, rawPdu } from '../support/esme.ts';
import { SERVER_OPTIONS, smppSuite, submitParams } from '../support/smpp-suite.ts';

/** Malformed PDUs get the right error status and never take the server down. */
describe('SMPP server: malformed PDUs', () => {
  const smppd = smppSuite(SERVER_OPTIONS);

  it('answers generic_nack ESME_RINVCMDLEN to a length below a header and closes', async () => {
    const c = await RawClient.connect(smppd.port);
    c.write(rawPdu(8, 0x15, 7));
    await eventually(async () => c.ended);
    assert.deepEqual(c.headers()[0], { id: 0x80000000, status: STATUS.RINVCMDLEN, seq: 7 });
  });

  it('answers generic_nack ESME_RINVCMDLEN to a huge length and closes, without waiting for the bytes', async () => {
    const c = await RawClient.connect(smppd.port);
    c.write(rawPdu(0xfffffff0, 0x04, 9));
    await eventually(async () => c.ended);
    assert.deepEqual(c.headers()[0], { id: 0x80000000, status: STATUS.RINVCMDLEN, seq: 9 });
  });

  it('answers generic_nack ESME_RINVCMDID to an unknown command and stays usable', async () => {
    const c = await RawClient.connect(smppd.port);
    c.write(rawPdu(16, 0x00000099, 3));
    c.write(rawPdu(16, 0x00000015, 4)); // enquire_link
    await eventually(async () => c.headers().length >= 2);
    assert.deepEqual(c.headers(), [
      { id: 0x80000000, status: STATUS.RINVCMDID, seq: 3 },
      { id: 0x80000015, status: 0, seq: 4 },
    ]);
    c.close();
  });

  it('answers a submit_sm whose body is cut short with an error, and keeps serving', async () => {
    const acct = await smppd.svc.newAccount({ balance: 100 });
    const cred = await smppd.issue(acct);
    const ourNumber = await smppd.numberOf(acct);
    const c = await RawClient.connect(smppd.port);
    const bind = new smpp.PDU('bind_transmitter', {
      sequence_number: 1,
      system_id: cred.systemId,
      password: cred.password,
    }).toBuffer();
    c.write(bind);
    await eventually(async () => c.headers().length >= 1);
    assert.equal(c.headers()[0].status, 0);
    const full = new smpp.PDU('submit_sm', { sequence_number: 2, ...submitParams(ourNumber) }).toBuffer();
    for (const cut of [17, 20, 28, 40]) {
      const part = Buffer.from(full.subarray(0, cut));
      part.writeUInt32BE(cut, 0);
      c.write(part);
    }
    // A TLV whose length runs past the PDU.
    const tlv = Buffer.concat([full, Buffer.from([0x04, 0x24, 0xff, 0xff, 0x41])]);
    tlv.writeUInt32BE(tlv.length, 0);
    c.write(tlv);
    await eventually(async () => c.headers().length >= 6);
    assert.deepEqual(
      c
        .headers()
        .slice(1)
        .map((h) => [h.id, h.status]),
      [
        [0x80000004, STATUS.RINVCMDLEN],
        [0x80000004, STATUS.RINVCMDLEN],
        [0x80000004, STATUS.RINVCMDLEN],
        [0x80000004, STATUS.RINVCMDLEN],
        [0x80000004, STATUS.RINVTLVLEN],
      ],
    );
    c.write(rawPdu(16, 0x00000015, 9));
    await eventually(async () => c.headers().some((h) => h.seq === 9));
    c.close();
    const e = await smppd.bound('transmitter', cred);
    assert.equal((await e.submit(submitParams(ourNumber))).command_status, 0);
  });
});
