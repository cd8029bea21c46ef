import assert from 'node:assert/strict';
import { randomUUID as newId } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SIMULATOR_MAGIC_NUMBERS, SimulatorProvider } from '../../src/providers/simulator/provider.ts';
import type {
  InboundMessage,
  OutboundMessage,
  ProviderSink,
  StatusUpdate,
} from '../../src/providers/types.ts';
import { eventually, startTestService, type TestService } from '../helpers.ts';

/** A sink that records every call it gets. */
function recordingSink() {
  const calls: StatusUpdate[][] = [];
  const received: InboundMessage[] = [];
  const sink: ProviderSink & {
    calls: StatusUpdate[][];
    received: InboundMessage[];
    all: () => StatusUpdate[];
  } = {
    calls,
    received,
    all: () => calls.flat(),
    async statuses(updates) {
      calls.push(updates);
    },
    async inbound(m) {
      received.push(m);
    },
  };
  return sink;
}

function message(to: string, overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: newId(),
    accountId: newId(),
    attempt: 1,
    from: '+12125550100',
    to,
    body: 'Hello',
    encoding: 'GSM-7',
    segments: 1,
    media: [],
    ...overrides,
  };
}

describe('simulator provider', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ simulatorDeliveryDelayMs: 20 });
  });
  after(async () => {
    await svc.close();
  });

  it('is registered in the context as the provider named simulator', () => {
    const p = svc.ctx.providers.get('simulator');
    assert.ok(p);
    assert.equal(p.name, 'simulator');
    assert.equal(p, svc.ctx.providers.simulator);
    assert.deepEqual(svc.ctx.providers.names(), ['simulator']);
    assert.equal(svc.ctx.providers.get('twilio'), undefined);
    assert.equal(svc.ctx.providers.get('smpp'), undefined);
  });

  it('sends to an ordinary number and later reports it delivered', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 10 });
    const sink = recordingSink();
    await sim.start(sink);
    const m = message('+14155550123');
    const res = await sim.send(m);
    assert.deepEqual(res, {
      ok: true,
      status: 'sent',
      providerMessageId: SimulatorProvider.providerMessageId(m.id, 1),
    });
    const [update] = await eventually(async () => sink.all().length > 0 && sink.all());
    assert.equal(update.provider, 'simulator');
    assert.equal(update.providerMessageId, res.ok ? res.providerMessageId : '');
    assert.equal(update.status, 'delivered');
    assert.equal(update.error, undefined);
    assert.ok(update.at instanceof Date && update.at.getTime() > 0);
    await sim.close();
  });

  it('fails the magic invalid, unroutable and not-SMS-capable numbers without a receipt', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 0 });
    const sink = recordingSink();
    await sim.start(sink);
    const cases: [string, string][] = [
      [SIMULATOR_MAGIC_NUMBERS.invalid, '21211'],
      [SIMULATOR_MAGIC_NUMBERS.unroutable, '21612'],
      [SIMULATOR_MAGIC_NUMBERS.notSmsCapable, '21614'],
      ['12345', '21211'],
    ];
    for (const [to, code] of cases) {
      const res = await sim.send(message(to));
      assert.equal(res.ok, false, to);
      if (!res.ok) {
        assert.equal(res.status, 'failed');
        assert.equal(res.error.code, code);
        assert.equal(res.retryable, false);
      }
    }
    assert.equal(res0(await sim.send(message(SIMULATOR_MAGIC_NUMBERS.invalid))), 'Invalid To number');
    // An ordinary send after the failures proves the timer ran; only its receipt arrives.
    await sim.send(message('+14155550124'));
    await eventually(async () => sink.all().length > 0);
    assert.equal(sink.all().length, 1);
    assert.equal(sim.counters().rejected, 5);
    assert.equal(sim.counters().accepted, 1);
    await sim.close();
  });

  it('accepts the magic blocked number, then reports it undelivered with 30004', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 5 });
    const sink = recordingSink();
    await sim.start(sink);
    const res = await sim.send(message(SIMULATOR_MAGIC_NUMBERS.blocked));
    assert.equal(res.ok, true);
    const [update] = await eventually(async () => sink.all().length > 0 && sink.all());
    assert.equal(update.status, 'undelivered');
    assert.equal(update.error?.code, '30004');
    await sim.close();
  });

  it('answers a repeated submission of one attempt with the same id and no second receipt', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 5 });
    const sink = recordingSink();
    await sim.start(sink);
    const m = message('+14155550125');
    const first = await sim.send(m);
    const again = await sim.send({ ...m });
    assert.deepEqual(again, first);
    const retry = await sim.send({ ...m, attempt: 2 });
    assert.equal(retry.ok, true);
    assert.notDeepEqual(retry, first);
    // A sentinel sent afterwards: once its receipt is in, every earlier receipt is too.
    const sentinel = await sim.send(message('+14155550126'));
    await eventually(async () =>
      sink.all().some((u) => sentinel.ok && u.providerMessageId === sentinel.providerMessageId),
    );
    const ids = sink.all().map((u) => u.providerMessageId);
    assert.equal(ids.filter((id) => first.ok && id === first.providerMessageId).length, 1);
    assert.equal(ids.length, 3);
    assert.equal(sim.counters().accepted, 3);
    assert.equal(sim.counters().duplicates, 1);
    assert.equal(sim.acceptedAttempts(m.id), 2);
    await sim.close();
  });

  it('batches receipts: many sends come back in far fewer sink calls', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 30 });
    const sink = recordingSink();
    await sim.start(sink);
    const n = 20_000;
    for (let i = 0; i < n; i++) await sim.send(message(`+1415${String(i).padStart(7, '0')}`));
    await eventually(async () => sink.all().length === n);
    assert.ok(sink.calls.length < n / 100, `${sink.calls.length} calls`);
    assert.equal(new Set(sink.all().map((u) => u.providerMessageId)).size, n);
    assert.equal(sim.counters().pending, 0);
    assert.equal(sim.counters().receipts, n);
    await sim.close();
  });

  it('holds receipts until started, and retries a batch the sink rejected', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 0 });
    const m = await sim.send(message('+14155550127'));
    assert.equal(sim.counters().pending, 1);
    let failures = 1;
    const got: StatusUpdate[] = [];
    const errors: unknown[] = [];
    const flaky: ProviderSink = {
      async statuses(u) {
        if (failures-- > 0) throw new Error('database down');
        got.push(...u);
      },
      async inbound() {},
    };
    const sim2 = new SimulatorProvider({ deliveryDelayMs: 0, onError: (e) => errors.push(e) });
    await sim2.send(message('+14155550128'));
    await sim2.start(flaky);
    await eventually(async () => got.length === 1, 5000);
    assert.equal(errors.length, 1);
    await sim.start(recordingSink());
    assert.equal(m.ok, true);
    await eventually(async () => sim.counters().receipts === 1);
    await sim.close();
    await sim2.close();
  });

  it('hands an injected inbound message to the sink', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 0 });
    const sink = recordingSink();
    await assert.rejects(sim.receive({ from: '+14155550129', to: '+12125550100', text: 'STOP' }));
    await sim.start(sink);
    const m = await sim.receive({ from: '+14155550129', to: '+12125550100', text: 'STOP' });
    assert.equal(sink.received.length, 1);
    assert.deepEqual(sink.received[0], m);
    assert.equal(m.provider, 'simulator');
    assert.equal(m.text, 'STOP');
    assert.ok(m.providerMessageId);
    assert.equal(sim.counters().inbound, 1);
    await sim.close();
  });

  it('answers a retryable failure once closed', async () => {
    const sim = new SimulatorProvider({ deliveryDelayMs: 0 });
    await sim.close();
    const res = await sim.send(message('+14155550130'));
    assert.equal(res.ok, false);
    if (!res.ok) assert.equal(res.retryable, true);
  });
});

function res0(res: Awaited<ReturnType<SimulatorProvider['send']>>): string {
  return res.ok ? '' : res.error.description;
}
