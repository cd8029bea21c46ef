import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import smpp, { type PDU } from 'smpp';
import { readSubmitSm } from '../../src/smpp/submit-sm-read.ts';

/** A submit_sm's bytes, each field as given (raw: any byte, any length). */
function frame(o: {
  serviceType?: string;
  source?: Buffer | string;
  destination?: Buffer | string;
  esmClass?: number;
  schedule?: string;
  validity?: string;
  registered?: number;
  dataCoding?: number;
  message: Buffer;
  tlvs?: Buffer;
  sequence?: number;
}): Buffer {
  const cstring = (v: Buffer | string) =>
    Buffer.concat([Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1'), Buffer.of(0)]);
  const body = Buffer.concat([
    cstring(o.serviceType ?? ''),
    Buffer.of(1, 1),
    cstring(o.source ?? '12125550100'),
    Buffer.of(1, 1),
    cstring(o.destination ?? '12015550123'),
    Buffer.of(o.esmClass ?? 0, 0, 0),
    cstring(o.schedule ?? ''),
    cstring(o.validity ?? ''),
    Buffer.of(o.registered ?? 1, 0, o.dataCoding ?? 0, 0, o.message.length),
    o.message,
    o.tlvs ?? Buffer.alloc(0),
  ]);
  const head = Buffer.alloc(16);
  head.writeUInt32BE(16 + body.length, 0);
  head.writeUInt32BE(0x04, 4);
  head.writeUInt32BE(0, 8);
  head.writeUInt32BE(o.sequence ?? 7, 12);
  return Buffer.concat([head, body]);
}

/** The package's reading and ours, as plain objects (ours: undefined when it leaves it to the package). */
function both(bytes: Buffer): { theirs: PDU; ours: PDU | undefined } {
  return { theirs: new smpp.PDU(bytes), ours: readSubmitSm(bytes) };
}

const ucs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();

describe('a submit_sm read directly (submit-sm-read.ts)', () => {
  it('reads the common shapes exactly as the smpp package does, fields, values and prototype', () => {
    const messages: [number, Buffer][] = [
      [0, Buffer.from('Your appointment is confirmed for Tuesday 10:30. Reply STOP to opt out.', 'latin1')],
      [0, Buffer.alloc(0)],
      // Every byte value (255 octets at most), the GSM escape (0x1B) before each of its extension
      // characters and alone.
      [0, Buffer.from(Array.from({ length: 255 }, (_, b) => b))],
      [0, Buffer.of(0xff, 0x80, 0x1b)],
      [0, Buffer.of(0x1b, 0x14, 0x41, 0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x3c, 0x1b, 0x65, 0x1b, 0x2f, 0x1b)],
      [1, Buffer.from('IA5 text {with} [brackets] ~ and \\ and ^', 'latin1')],
      [0x11, Buffer.from('high nibble set, GSM below', 'latin1')],
      [3, Buffer.from('Caf\xe9 na\xefve \xff', 'latin1')],
      [8, ucs2('\u201cHi\u201d \u4f60\u597d \ud83d\ude00')],
      [8, Buffer.alloc(0)],
      [0xf8, ucs2('class bits over UCS-2')],
    ];
    let read = 0;
    for (const [dataCoding, message] of messages)
      for (const source of ['12125550100', 'Sparrow', Buffer.of(0x41, 0xc3, 0xa9, 0x7f)])
        for (const registered of [0, 1, 0x11])
          for (const serviceType of ['', 'CMT']) {
            const bytes = frame({ dataCoding, message, source, registered, serviceType, sequence: read + 1 });
            const { theirs, ours } = both(bytes);
            assert.ok(ours, `read directly: data coding ${dataCoding}, ${message.length} octets`);
            assert.equal(Object.getPrototypeOf(ours), Object.getPrototypeOf(theirs));
            assert.deepStrictEqual({ ...ours }, { ...theirs });
            read++;
          }
    assert.equal(read, messages.length * 3 * 3 * 2);
  });

  it('leaves every other shape to the package', () => {
    const text = Buffer.from('Hello', 'latin1');
    const others: [string, Buffer][] = [
      [
        'a TLV after the short message',
        frame({ message: text, tlvs: Buffer.of(0x02, 0x0c, 0x00, 0x02, 0x00, 0x07) }),
      ],
      ['a UDH', frame({ esmClass: 0x40, message: Buffer.concat([Buffer.of(5, 0, 3, 9, 2, 1), text]) })],
      ['a scheduled delivery time', frame({ schedule: '000001000000000R', message: text })],
      ['a validity period', frame({ validity: '261130120000000+', message: text })],
      ['binary (data coding 4)', frame({ dataCoding: 4, message: text })],
      ['data coding 2', frame({ dataCoding: 2, message: text })],
      ['UCS-2 of odd length', frame({ dataCoding: 8, message: Buffer.of(0, 0x41, 0) })],
      [
        'UCS-2 with a byte-order mark',
        frame({ dataCoding: 8, message: Buffer.concat([Buffer.of(0xfe, 0xff), ucs2('Hi')]) }),
      ],
    ];
    for (const [what, bytes] of others) {
      assert.equal(readSubmitSm(bytes), undefined, what);
      // And the package reads it (what the server then uses).
      assert.equal(new smpp.PDU(bytes).command, 'submit_sm', what);
    }
    const deliver = frame({ message: text });
    deliver.writeUInt32BE(0x05, 4);
    assert.equal(readSubmitSm(deliver), undefined, 'a deliver_sm');
    assert.equal(
      readSubmitSm(frame({ message: text }).subarray(0, 40)),
      undefined,
      'a frame shorter than its length',
    );
  });
});
