/**
 * Sparrow's SMPP client (src/providers/smpp) against an SMSC built on another codec: Net::SMPP
 * (Debian's libnet-smpp-perl), test/support/perl-smsc.pl. Skipped, with the reason, when perl or
 * Net::SMPP is absent.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SmppProvider } from '../../src/providers/smpp/provider.ts';
import type {
  InboundMessage,
  OutboundMessage,
  ProviderSink,
  StatusUpdate,
} from '../../src/providers/types.ts';
import { eventually } from '../helpers.ts';

const SCRIPT = path.join(import.meta.dirname, '..', 'support', 'perl-smsc.pl');
const probe = spawnSync('perl', ['-MNet::SMPP', '-e', '1'], { encoding: 'utf8' });
const skip =
  probe.error || probe.status !== 0
    ? 'perl with Net::SMPP is not installed (apt-get install libnet-smpp-perl)'
    : false;

interface Record {
  id: string;
  source: string;
  destination: string;
  dataCoding: number;
  esmClass: number;
  registered: number;
  short: Buffer;
}

describe('SMPP provider against a Net::SMPP SMSC', { skip }, () => {
  let smsc: ChildProcess;
  let dir: string;
  let records: string;
  let port: number;
  let provider: SmppProvider;
  const statuses: StatusUpdate[] = [];
  const inbound: InboundMessage[] = [];
  const sink: ProviderSink = {
    async statuses(u) {
      statuses.push(...u);
    },
    async inbound(m) {
      inbound.push(m);
    },
  };
  const read = (): Record[] =>
    readFileSync(records, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [id, source, destination, dc, esm, reg, hex] = line.split('\t');
        return {
          id,
          source,
          destination,
          dataCoding: Number(dc),
          esmClass: Number(esm),
          registered: Number(reg),
          short: Buffer.from(hex ?? '', 'hex'),
        };
      });
  const message = (body: string, extra: Partial<OutboundMessage> = {}): OutboundMessage => ({
    id: randomUUID(),
    accountId: randomUUID(),
    attempt: 1,
    from: '+12125550100',
    to: '+12015550123',
    body,
    encoding: 'GSM-7',
    segments: 1,
    media: [],
    ...extra,
  });

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sparrow-perl-smsc-'));
    records = path.join(dir, 'submissions.tsv');
    // Its own process group: the connection children go with it at the end.
    smsc = spawn('perl', [SCRIPT, records, 'sparrow', 'pw123'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    smsc.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
    });
    port = await eventually(async () => Number(/PORT (\d+)/.exec(out)?.[1]) || undefined);
    provider = new SmppProvider({
      url: `smpp://127.0.0.1:${port}`,
      systemId: 'sparrow',
      password: 'pw123',
      windowSize: 5,
      maxPerSecond: 0,
      sendTimeoutMs: 5000,
    });
    await provider.start(sink);
    await eventually(async () => provider.isBound);
  });

  after(async () => {
    await provider?.close();
    if (smsc?.pid && smsc.exitCode === null) {
      const exited = new Promise((r) => smsc.once('exit', r));
      process.kill(-smsc.pid, 'SIGTERM');
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('submits a GSM-7 text that the Perl SMSC records, and reads its text receipt', async () => {
    const res = await provider.send(message('Hello Perl @ 5€'));
    assert.equal(res.ok, true, JSON.stringify(res));
    const id = res.ok ? res.providerMessageId : '';
    const rec = read().find((r) => r.id === id);
    assert.ok(rec, `no record for ${id}`);
    assert.equal(rec.destination, '12015550123');
    assert.equal(rec.source, '12125550100');
    assert.equal(rec.dataCoding, 0);
    assert.equal(rec.registered & 1, 1);
    // GSM 03.38, one septet per octet: '@' is 0x00, '€' is 0x1B 0x65.
    assert.deepEqual([...rec.short.subarray(-5)], [0x00, 0x20, 0x35, 0x1b, 0x65]);
    const update = await eventually(async () => statuses.find((s) => s.providerMessageId === id));
    assert.equal(update.status, 'delivered');
  });

  it('sends a long text in UDH parts the Perl SMSC records in order', async () => {
    const body = `${'Sparrow '.repeat(25)}end`; // 203 septets: two parts
    const res = await provider.send(message(body, { segments: 2 }));
    assert.equal(res.ok, true);
    const recs = read().slice(-2);
    assert.equal(recs.length, 2);
    for (const [i, r] of recs.entries()) {
      assert.equal(r.esmClass & 0x40, 0x40);
      assert.deepEqual([...r.short.subarray(0, 3)], [0x05, 0x00, 0x03]);
      assert.deepEqual([r.short[4], r.short[5]], [2, i + 1]);
    }
    assert.equal(recs[0].short[3], recs[1].short[3], 'same reference');
    const text = recs.map((r) => r.short.subarray(6).toString('latin1')).join('');
    assert.equal(text, body);
    if (res.ok) assert.equal(res.providerMessageId, recs[0].id);
  });

  it('sends UCS-2 with data_coding 8', async () => {
    const res = await provider.send(message('Привет 😀', { encoding: 'UCS-2' }));
    assert.equal(res.ok, true);
    const id = res.ok ? res.providerMessageId : '';
    const rec = read().find((r) => r.id === id);
    assert.ok(rec, `no record for ${id}`);
    assert.equal(rec.dataCoding, 8);
    assert.equal(Buffer.from(rec.short).swap16().toString('utf16le'), 'Привет 😀');
  });

  it('hands an inbound deliver_sm from the Perl SMSC to the sink', async () => {
    const res = await provider.send(message('PING'));
    assert.equal(res.ok, true);
    const got = await eventually(async () => inbound.find((m) => m.text === 'PONG'));
    assert.equal(got.from, '+12015550123');
    assert.equal(got.to, '+12125550100');
  });

  it('is refused a bind with a wrong password and reports the link down', async () => {
    const logs: string[] = [];
    const wrong = new SmppProvider({
      url: `smpp://127.0.0.1:${port}`,
      systemId: 'sparrow',
      password: 'nope',
      windowSize: 1,
      maxPerSecond: 0,
      sendTimeoutMs: 2000,
      minBackoffMs: 60_000,
      log: (m) => logs.push(m),
    });
    await wrong.start(sink);
    const res = await wrong.send(message('never'));
    await wrong.close();
    assert.equal(res.ok, false);
    assert.ok(
      logs.some((l) => /bind refused with status 0xe\b/.test(l)),
      logs.join('\n'),
    );
    if (!res.ok) {
      assert.equal(res.error.code, 'SMPP-DOWN');
      assert.equal(res.retryable, true);
    }
  });
});
