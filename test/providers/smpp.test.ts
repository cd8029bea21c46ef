import assert from 'node:assert/strict';
import { randomUUID as newId } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import smpp, { type DecodedMessage, type PDU, type Server, type Session } from 'smpp';
import { type SmppOptions, SmppProvider } from '../../src/providers/smpp/provider.ts';
import { parseReceipt } from '../../src/providers/smpp/receipts.ts';
import { splitForSmpp } from '../../src/providers/smpp/split.ts';
import type {
  InboundMessage,
  OutboundMessage,
  ProviderSink,
  StatusUpdate,
} from '../../src/providers/types.ts';
import { eventually, startTestService, type TestService } from '../helpers.ts';

const SYSTEM_ID = 'sparrow';
const PASSWORD = 'secret1';

interface Submitted {
  pdu: PDU;
  messageId: string;
  destination: string;
  text: string;
  udh: Buffer[];
  at: number;
}

/**
 * An SMSC from the same package: checks the bind credentials, answers submit_sm with message ids
 * (or the error a magic destination asks for), sends a delivery receipt for each accepted part,
 * and can push inbound deliver_sm.
 */
class TestSmsc {
  server: Server | undefined;
  port = 0;
  sessions: Session[] = [];
  submitted: Submitted[] = [];
  held: { session: Session; pdu: PDU; messageId: string }[] = [];
  binds = 0;
  enquireLinks = 0;
  /** When set, enquire_link goes unanswered (a link that looks up but is dead). */
  silent = false;
  /** deliver_sm_resp status of each receipt, by the message id it reported. */
  receiptAnswers = new Map<string, number>();
  receiptsViaTlv = false;
  private seq = 0;

  async start(port = 0): Promise<void> {
    const server = smpp.createServer((session) => this.onSession(session));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sessions) s.destroy();
    this.sessions = [];
    this.held = [];
    await new Promise((r) => server.close(r));
  }

  get url(): string {
    return `smpp://127.0.0.1:${this.port}`;
  }

  private onSession(session: Session): void {
    this.sessions.push(session);
    session.on('error', () => {});
    session.on('close', () => {
      this.sessions = this.sessions.filter((x) => x !== session);
    });
    session.on('bind_transceiver', (pdu: PDU) => {
      if (pdu.system_id !== SYSTEM_ID || pdu.password !== PASSWORD) {
        session.send(pdu.response({ command_status: smpp.ESME_RBINDFAIL }));
        session.close();
        return;
      }
      this.binds++;
      session.send(pdu.response({ system_id: 'TESTSMSC' }));
    });
    session.on('enquire_link', (pdu: PDU) => {
      this.enquireLinks++;
      if (!this.silent) session.send(pdu.response());
    });
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on('submit_sm', (pdu: PDU) => this.onSubmit(session, pdu));
  }

  private onSubmit(session: Session, pdu: PDU): void {
    const destination = String(pdu.destination_addr);
    const sm = pdu.short_message as DecodedMessage;
    const messageId = `M${(++this.seq).toString(16).padStart(6, '0')}`;
    this.submitted.push({
      pdu,
      messageId,
      destination,
      text: typeof sm.message === 'string' ? sm.message : sm.message.toString('hex'),
      udh: sm.udh ?? [],
      at: Date.now(),
    });
    if (destination === '15005550001') {
      session.send(pdu.response({ command_status: smpp.ESME_RINVDSTADR }));
      return;
    }
    if (destination === '15005550011') {
      session.send(pdu.response({ command_status: smpp.ESME_RTHROTTLED }));
      return;
    }
    if (destination === '15005550015') {
      this.held.push({ session, pdu, messageId });
      return;
    }
    session.send(pdu.response({ message_id: messageId }));
    if (pdu.registered_delivery)
      this.receipt(session, messageId, destination === '15005550004' ? 'UNDELIV' : 'DELIVRD');
  }

  /** Answers the held submissions now. */
  release(): void {
    for (const h of this.held.splice(0)) h.session.send(h.pdu.response({ message_id: h.messageId }));
  }

  receipt(session: Session, messageId: string, stat: string): void {
    const text = `id:${messageId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:2501011200 done date:2501011201 stat:${stat} err:${stat === 'DELIVRD' ? '000' : '034'} text:`;
    const states: Record<string, number> = { DELIVRD: 2, UNDELIV: 5 };
    session.deliver_sm(
      {
        source_addr: '14155550123',
        destination_addr: '12125550100',
        esm_class: 0x04,
        short_message: text,
        ...(this.receiptsViaTlv ? { receipted_message_id: messageId, message_state: states[stat] } : {}),
      },
      (resp) => this.receiptAnswers.set(messageId, resp.command_status),
    );
  }

  /** A handset's message to one of our numbers. */
  inbound(params: Record<string, unknown>): Promise<number> {
    return new Promise((resolve) => {
      this.sessions.at(-1)!.deliver_sm(params, (resp) => resolve(resp.command_status));
    });
  }
}

function recordingSink(opts: { failStatuses?: number } = {}) {
  const statuses: StatusUpdate[] = [];
  const inbound: InboundMessage[] = [];
  let failures = opts.failStatuses ?? 0;
  const sink: ProviderSink = {
    async statuses(updates) {
      if (failures-- > 0) throw new Error('database down');
      statuses.push(...updates);
    },
    async inbound(m) {
      inbound.push(m);
    },
  };
  return { sink, statuses, inbound };
}

function message(to: string, overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: newId(),
    accountId: newId(),
    attempt: 1,
    from: '+12125550100',
    to,
    body: 'Hello from Sparrow',
    encoding: 'GSM-7',
    segments: 1,
    media: [],
    ...overrides,
  };
}

describe('SMPP provider', () => {
  let svc: TestService;
  const smsc = new TestSmsc();
  const opened: SmppProvider[] = [];
  const provider = (overrides: Partial<SmppOptions> = {}) => {
    const p = new SmppProvider({
      url: smsc.url,
      systemId: SYSTEM_ID,
      password: PASSWORD,
      windowSize: 10,
      maxPerSecond: 0,
      minBackoffMs: 50,
      maxBackoffMs: 200,
      sendTimeoutMs: 2000,
      ...overrides,
    });
    opened.push(p);
    return p;
  };

  before(async () => {
    await smsc.start();
    svc = await startTestService({
      smpp: { url: smsc.url, systemId: SYSTEM_ID, password: PASSWORD, windowSize: 5, maxPerSecond: 100 },
    });
  });
  after(async () => {
    for (const p of opened) await p.close();
    await svc.close();
    await smsc.stop();
  });

  it('is built by the registry when SMPP_URL is set, binds on start and unbinds on close', async () => {
    const p = svc.ctx.providers.get('smpp');
    assert.ok(p instanceof SmppProvider);
    const binds = smsc.binds;
    await svc.ctx.providers.start(recordingSink().sink);
    await eventually(async () => p.isBound);
    assert.equal(smsc.binds, binds + 1);
    assert.equal(smsc.sessions.length, 1);
    await svc.ctx.providers.close();
    assert.equal(p.isBound, false);
    await eventually(async () => smsc.sessions.length === 0);
  });

  it('submits with a receipt requested, answers the SMSC message id and reports the receipt', async () => {
    const p = provider();
    const rec = recordingSink();
    await p.start(rec.sink);
    const res = await p.send(message('+14155550123'));
    assert.equal(res.ok, true);
    const sub = smsc.submitted.at(-1)!;
    if (res.ok) assert.equal(res.providerMessageId, sub.messageId);
    assert.equal(sub.destination, '14155550123');
    assert.equal(sub.pdu.dest_addr_ton, 1);
    assert.equal(sub.pdu.source_addr, '12125550100');
    assert.equal(sub.pdu.registered_delivery, 1);
    assert.equal(sub.pdu.data_coding, 0);
    assert.equal(sub.text, 'Hello from Sparrow');
    const [update] = await eventually(async () => rec.statuses.length > 0 && rec.statuses);
    assert.deepEqual(
      { ...update, at: undefined },
      {
        provider: 'smpp',
        providerMessageId: sub.messageId,
        status: 'delivered',
        at: undefined,
      },
    );
    await eventually(async () => smsc.receiptAnswers.has(sub.messageId));
    assert.equal(smsc.receiptAnswers.get(sub.messageId), 0);
  });

  it('submits what is left of the validity as a relative validity_period on every part, none without one', async () => {
    const p = provider();
    await p.start(recordingSink().sink);
    const before = Date.now();
    const count = smsc.submitted.length;
    const res = await p.send(
      message('+14155550140', { body: 'v'.repeat(200), segments: 2, validityPeriod: 5400 }),
    );
    const after = Date.now();
    assert.equal(res.ok, true);
    const parts = smsc.submitted.slice(count);
    assert.equal(parts.length, 2);
    for (const part of parts) {
      // The package decodes the relative time (000000013000000R) to the instant it names on arrival.
      const at = part.pdu.validity_period as unknown as Date;
      assert.ok(at instanceof Date, `validity_period ${String(at)}`);
      assert.ok(at.getTime() >= before + 5_399_000 && at.getTime() <= after + 5_401_000, at.toISOString());
    }
    const plain = smsc.submitted.length;
    assert.equal((await p.send(message('+14155550141'))).ok, true);
    assert.ok(!smsc.submitted[plain].pdu.validity_period, 'no validity_period without a validity');
  });

  it('reports an undelivered receipt, read from the text or from the TLVs', async () => {
    const p = provider();
    const rec = recordingSink();
    await p.start(rec.sink);
    for (const viaTlv of [false, true]) {
      smsc.receiptsViaTlv = viaTlv;
      const res = await p.send(message('+15005550004'));
      assert.equal(res.ok, true);
      const id = res.ok ? res.providerMessageId : '';
      const update = await eventually(async () => rec.statuses.find((u) => u.providerMessageId === id));
      assert.equal(update.status, 'undelivered');
      assert.equal(update.error?.code, 'SMPP-UNDELIV');
    }
    smsc.receiptsViaTlv = false;
  });

  it('answers the SMSC a temporary error when the sink cannot take the receipts, so it retries', async () => {
    const p = provider();
    const rec = recordingSink({ failStatuses: 1 });
    await p.start(rec.sink);
    const res = await p.send(message('+14155550124'));
    const id = res.ok ? res.providerMessageId : '';
    await eventually(async () => smsc.receiptAnswers.has(id));
    assert.equal(smsc.receiptAnswers.get(id), smpp.ESME_RX_T_APPN);
    assert.equal(rec.statuses.length, 0);
  });

  it('splits a long GSM-7 message into parts with a concatenation UDH; the first part id stands for it', async () => {
    const p = provider();
    const rec = recordingSink();
    await p.start(rec.sink);
    const body = `{${'a'.repeat(159)}`; // 161 septets: two parts
    const before = smsc.submitted.length;
    const res = await p.send(message('+14155550125', { body, segments: 2 }));
    assert.equal(res.ok, true);
    const parts = smsc.submitted.slice(before);
    assert.equal(parts.length, 2);
    const [u1, u2] = parts.map((s) => s.udh[0]);
    assert.deepEqual([...u1.subarray(0, 2)], [0x00, 0x03]);
    assert.equal(u1[2], u2[2], 'same reference');
    assert.deepEqual([u1[3], u1[4], u2[3], u2[4]], [2, 1, 2, 2]);
    assert.equal(parts[0].pdu.esm_class && Number(parts[0].pdu.esm_class) & 0x40, 0x40);
    assert.equal(parts.map((s) => s.text).join(''), body);
    if (res.ok) assert.equal(res.providerMessageId, parts[0].messageId);
    // Both parts get a DELIVRD receipt; one update, for the first part's id.
    await eventually(async () => rec.statuses.length > 0);
    await eventually(async () => parts.every((s) => smsc.receiptAnswers.has(s.messageId)));
    assert.deepEqual(
      rec.statuses.map((u) => [u.providerMessageId, u.status]),
      [[parts[0].messageId, 'delivered']],
    );
  });

  it('sends UCS-2 with data_coding 8 in parts of 67 units, never cutting a surrogate pair', async () => {
    const p = provider();
    await p.start(recordingSink().sink);
    const body = `😀${'ж'.repeat(69)}`; // 71 units: two parts
    const before = smsc.submitted.length;
    const res = await p.send(message('+14155550126', { body, encoding: 'UCS-2', segments: 2 }));
    assert.equal(res.ok, true);
    const parts = smsc.submitted.slice(before);
    assert.equal(parts.length, 2);
    assert.equal(parts[0].pdu.data_coding, 8);
    assert.equal(parts.map((s) => s.text).join(''), body);
  });

  it('maps submit_sm errors: invalid destination is final, throttling is retryable', async () => {
    const p = provider();
    await p.start(recordingSink().sink);
    const invalid = await p.send(message('+15005550001'));
    assert.equal(invalid.ok, false);
    if (!invalid.ok) {
      assert.equal(invalid.error.code, 'SMPP-INVDSTADR');
      assert.equal(invalid.retryable, false);
    }
    const throttled = await p.send(message('+15005550011'));
    assert.equal(throttled.ok, false);
    if (!throttled.ok) assert.equal(throttled.retryable, true);
  });

  it('does not submit the same (message id, attempt) twice', async () => {
    const p = provider();
    await p.start(recordingSink().sink);
    const m = message('+14155550127');
    const before = smsc.submitted.length;
    const [a, b] = await Promise.all([p.send(m), p.send({ ...m })]);
    const c = await p.send({ ...m });
    assert.deepEqual(a, b);
    assert.deepEqual(a, c);
    assert.equal(smsc.submitted.length, before + 1);
  });

  it('keeps at most windowSize submit_sm outstanding', async () => {
    const p = provider({ windowSize: 2 });
    await p.start(recordingSink().sink);
    await eventually(async () => p.isBound);
    const before = smsc.submitted.length;
    const sends = [1, 2, 3].map(() => p.send(message('+15005550015')));
    await eventually(async () => smsc.held.length === 2);
    // Give a third submit_sm the time to arrive if the window let it through.
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(smsc.submitted.length - before, 2);
    smsc.release();
    await eventually(async () => smsc.held.length === 1);
    smsc.release();
    const results = await Promise.all(sends);
    assert.ok(results.every((r) => r.ok));
    assert.equal(smsc.submitted.length - before, 3);
  });

  it('paces submissions to maxPerSecond', async () => {
    const p = provider({ maxPerSecond: 20 });
    await p.start(recordingSink().sink);
    const before = smsc.submitted.length;
    const start = Date.now();
    await Promise.all([1, 2, 3, 4, 5].map((i) => p.send(message(`+1415555013${i}`))));
    const times = smsc.submitted.slice(before).map((s) => s.at);
    assert.equal(times.length, 5);
    // Five submissions at 20/s take slots 50 ms apart from the first send on: the fifth cannot reach
    // the SMSC before start + 200 ms (small allowance for timer rounding). Measured from the start,
    // not from the first arrival: a busy machine can delay any arrival, never advance one.
    assert.ok(times[4] - start >= 190, `${times[4] - start} ms`);
  });

  it('answers a retryable failure when the SMSC does not answer in time', async () => {
    const p = provider({ sendTimeoutMs: 300 });
    await p.start(recordingSink().sink);
    const res = await p.send(message('+15005550015'));
    assert.equal(res.ok, false);
    if (!res.ok) {
      assert.equal(res.error.code, 'SMPP-TIMEOUT');
      assert.equal(res.retryable, true);
    }
    smsc.release();
  });

  it('hands an inbound deliver_sm to the sink and answers deliver_sm_resp', async () => {
    const p = provider();
    const rec = recordingSink();
    await p.start(rec.sink);
    await eventually(async () => p.isBound);
    const status = await smsc.inbound({
      source_addr: '14155550199',
      source_addr_ton: 1,
      destination_addr: '12125550100',
      dest_addr_ton: 1,
      short_message: 'STOP',
    });
    assert.equal(status, 0);
    const m = await eventually(async () => rec.inbound.find((x) => x.from === '+14155550199'));
    assert.equal(m.to, '+12125550100');
    assert.equal(m.text, 'STOP');
    assert.equal(m.provider, 'smpp');
  });

  it('reassembles a concatenated inbound message', async () => {
    const p = provider();
    const rec = recordingSink();
    await p.start(rec.sink);
    await eventually(async () => p.isBound);
    for (const [i, text] of [
      [2, ' world'],
      [1, 'Hello'],
    ] as const) {
      await smsc.inbound({
        source_addr: '14155550198',
        source_addr_ton: 1,
        destination_addr: '12125550100',
        dest_addr_ton: 1,
        short_message: { udh: Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, i]), message: text },
      });
    }
    const m = await eventually(async () => rec.inbound.find((x) => x.from === '+14155550198'));
    assert.equal(m.text, 'Hello world');
    assert.equal(rec.inbound.filter((x) => x.from === '+14155550198').length, 1);
  });

  it('fails fast while the SMSC is down and reconnects and re-binds when it is back', async () => {
    const p = provider({ sendTimeoutMs: 400 });
    await p.start(recordingSink().sink);
    await eventually(async () => p.isBound);
    const port = smsc.port;
    await smsc.stop();
    await eventually(async () => !p.isBound);
    const down = await p.send(message('+14155550140'));
    assert.equal(down.ok, false);
    if (!down.ok) {
      assert.equal(down.error.code, 'SMPP-DOWN');
      assert.equal(down.retryable, true);
    }
    const binds = smsc.binds;
    await smsc.start(port);
    await eventually(async () => p.isBound, 5000);
    assert.ok(smsc.binds > binds);
    const up = await p.send(message('+14155550141'));
    assert.equal(up.ok, true);
  });

  it('sends enquire_link periodically, and drops and re-binds a link whose enquire_link goes unanswered', async () => {
    const p = provider({ enquireLinkMs: 100 });
    await p.start(recordingSink().sink);
    await eventually(async () => p.isBound);
    const links = smsc.enquireLinks;
    await eventually(async () => smsc.enquireLinks >= links + 2);
    const binds = smsc.binds;
    smsc.silent = true;
    await eventually(async () => smsc.binds > binds, 5000);
    smsc.silent = false;
    await eventually(async () => p.isBound);
  });

  it('refuses to work with wrong credentials: sends fail as retryable, never hang', async () => {
    const p = provider({ password: 'wrong', sendTimeoutMs: 300 });
    await p.start(recordingSink().sink);
    const res = await p.send(message('+14155550142'));
    assert.equal(res.ok, false);
    if (!res.ok) assert.equal(res.error.code, 'SMPP-DOWN');
    assert.equal(p.isBound, false);
  });
});

describe('splitForSmpp', () => {
  it('follows the published GSM-7 and UCS-2 segment vectors (docs/interface.md)', () => {
    assert.equal(splitForSmpp(`{${'a'.repeat(158)}`, 'GSM-7').parts.length, 1);
    assert.equal(splitForSmpp(`{${'a'.repeat(159)}`, 'GSM-7').parts.length, 2);
    assert.equal(splitForSmpp('a'.repeat(307), 'GSM-7').parts.length, 3);
    assert.equal(splitForSmpp(`😀${'a'.repeat(68)}`, 'UCS-2').parts.length, 1);
    assert.equal(splitForSmpp(`😀${'a'.repeat(69)}`, 'UCS-2').parts.length, 2);
  });

  it('never cuts an extension character or a surrogate pair across parts', () => {
    // 152 + 2 + 10 = 164 septets: the euro sign would straddle the 153-septet boundary.
    const gsm = splitForSmpp(`${'a'.repeat(152)}€${'b'.repeat(10)}`, 'GSM-7');
    assert.deepEqual(
      gsm.parts.map((p) => p.length),
      [152, 12],
    );
    assert.deepEqual([...gsm.parts[1].subarray(0, 3)], [0x1b, 0x65, 0x62]);
    // 66 + 2 + 3 = 71 units: the emoji would straddle the 67-unit boundary.
    const ucs = splitForSmpp(`${'a'.repeat(66)}😀bbb`, 'UCS-2');
    assert.deepEqual(
      ucs.parts.map((p) => p.length / 2),
      [66, 5],
    );
  });

  it('encodes GSM-7 unpacked with data_coding 0 and UCS-2 big-endian with data_coding 8', () => {
    const g = splitForSmpp('@£€', 'GSM-7');
    assert.equal(g.dataCoding, 0);
    assert.deepEqual([...g.parts[0]], [0x00, 0x01, 0x1b, 0x65]);
    const u = splitForSmpp('ж', 'UCS-2');
    assert.equal(u.dataCoding, 8);
    assert.deepEqual([...u.parts[0]], [0x04, 0x36]);
  });
});

describe('parseReceipt', () => {
  it('maps receipt stat words to our statuses', () => {
    const r = (stat: string) =>
      parseReceipt(
        `id:abc sub:001 dlvrd:000 submit date:2501011200 done date:2501011201 stat:${stat} err:000 text:`,
        {},
      );
    assert.deepEqual(r('DELIVRD'), { messageId: 'abc', status: 'delivered' });
    assert.equal(r('UNDELIV')?.status, 'undelivered');
    assert.equal(r('EXPIRED')?.status, 'undelivered');
    assert.equal(r('REJECTD')?.status, 'failed');
    assert.equal(r('ENROUTE')?.status, undefined);
    assert.equal(parseReceipt('no receipt here', {}), undefined);
  });

  it('prefers the receipted_message_id and message_state TLVs', () => {
    const r = parseReceipt('id:fromtext stat:DELIVRD', { receiptedMessageId: 'fromtlv', messageState: 8 });
    assert.equal(r?.messageId, 'fromtlv');
    assert.equal(r?.status, 'failed');
    assert.equal(r?.error?.code, 'SMPP-REJECTD');
  });
});
