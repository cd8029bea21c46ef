import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import smpp from 'smpp';
import { submitSmParams } from '../../src/providers/smpp/pdu.ts';
import { concatUdh } from '../../src/providers/smpp/split.ts';
import { rawSubmitSm, submitSmBytes } from '../../src/providers/smpp/submit-sm-bytes.ts';

/** The package's own bytes for the same submit_sm: what the direct writer must equal. */
const packageBytes = (params: Record<string, unknown>, sequence: number) =>
  new smpp.PDU('submit_sm', { ...params, sequence_number: sequence }).toBuffer();

/** The parameters the provider sends (provider.ts submit, pdu.ts submitSmParams). */
function providerParams(o: {
  from: string;
  to: string;
  dataCoding: number;
  validity?: number;
  part?: { ref: number; count: number; index: number };
  payload: Buffer;
}): Record<string, unknown> {
  return submitSmParams({
    from: o.from,
    to: o.to,
    dataCoding: o.dataCoding,
    validitySeconds: o.validity,
    udh: o.part ? concatUdh(o.part.ref, o.part.count, o.part.index) : undefined,
    payload: o.payload,
  });
}

describe('a submit_sm written directly (submit-sm-bytes.ts)', () => {
  it("equals the smpp package's bytes for every shape of the provider's submissions", () => {
    const cases: Record<string, unknown>[] = [];
    for (const from of ['+12125550100', 'Sparrow', '12345', '+447700900123'])
      for (const to of ['+12015550123', '+33612345678', '447700900456'])
        for (const dataCoding of [0, 8])
          for (const validity of [undefined, 1, 5400, 604_800])
            for (const part of [undefined, { ref: 7, count: 3, index: 2 }, { ref: 255, count: 2, index: 1 }])
              cases.push(
                providerParams({
                  from,
                  to,
                  dataCoding,
                  validity,
                  part,
                  payload: Buffer.from(
                    dataCoding === 8 ? 'Grüße 👋'.repeat(5) : 'Your code is 2718',
                    dataCoding === 8 ? 'utf16le' : 'latin1',
                  ),
                }),
              );
    // The longest short_message (255 octets) and an empty one.
    cases.push(
      { ...cases[0], short_message: Buffer.alloc(255, 0x41) },
      { ...cases[0], short_message: Buffer.alloc(0) },
    );
    // The package's own handling of short times (up to 12 digits: a relative time) and of defaults.
    cases.push({ ...cases[0], validity_period: '10000' }, { short_message: Buffer.from('hi') });
    for (const [k, params] of cases.entries()) {
      const sequence = (k * 7919 + 1) % 0x7fffffff;
      assert.deepEqual(
        submitSmBytes(params, sequence),
        packageBytes(params, sequence),
        JSON.stringify(params),
      );
    }
  });

  it('takes its sequence number from the session that sends it, as the package does', () => {
    const params = providerParams({
      from: '+12125550100',
      to: '+12015550123',
      dataCoding: 0,
      payload: Buffer.from('hello'),
    });
    const pdu = rawSubmitSm(params);
    assert.ok(pdu);
    assert.equal(pdu.isResponse(), false);
    pdu.sequence_number = 42;
    assert.deepEqual(pdu.toBuffer(), packageBytes(params, 42));
    const decoded = new smpp.PDU(pdu.toBuffer());
    assert.equal(decoded.command, 'submit_sm');
    assert.equal(decoded.sequence_number, 42);
    assert.equal(decoded.destination_addr, '12015550123');
  });

  it('leaves to the package what it does not write: a TLV, a text message, a Date, a value out of range', () => {
    const base = providerParams({
      from: '+12125550100',
      to: '+12015550123',
      dataCoding: 0,
      payload: Buffer.from('hi'),
    });
    for (const odd of [
      { message_payload: Buffer.from('long') },
      { short_message: 'text' },
      { short_message: Buffer.alloc(256) },
      { validity_period: new Date() },
      { data_coding: 256 },
      { esm_class: -1 },
      { source_addr: 12 },
    ]) {
      assert.equal(submitSmBytes({ ...base, ...odd }, 1), undefined, JSON.stringify(Object.keys(odd)));
      assert.equal(rawSubmitSm({ ...base, ...odd }), undefined);
    }
  });
});
