import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseProvider,
  matchRoute,
  movesOnAtOnce,
  providerOrder,
  type Route,
  refusedOutright,
  senderUsable,
} from '../../src/messaging/routing.ts';

const ACC = 'acc-1';
const route = (over: Partial<Route>): Route => ({
  id: Math.random().toString(36),
  accountId: ACC,
  prefix: null,
  country: null,
  providers: [{ provider: 'smpp', priority: 1, weight: 1 }],
  ...over,
});

describe('routing: which route serves a destination', () => {
  const uk = route({ prefix: '44' });
  const ukMobile = route({ prefix: '447' });
  const gb = route({ country: 'GB' });
  const all = route({});
  const defaultUs = route({ accountId: null, country: 'US' });
  const defaultAll = route({ accountId: null });
  const routes = [all, uk, ukMobile, gb, defaultUs, defaultAll];
  const countryOf = (to: string) => (to.startsWith('+44') ? 'GB' : to.startsWith('+1') ? 'US' : 'FR');

  it('takes the longest prefix, then the country, then the catch-all of the account', () => {
    assert.equal(matchRoute(routes, ACC, '+447700900123', countryOf), ukMobile);
    assert.equal(matchRoute(routes, ACC, '+442070000000', countryOf), uk);
    assert.equal(matchRoute([gb, all], ACC, '+442070000000', countryOf), gb);
    assert.equal(matchRoute(routes, ACC, '+33612345678', countryOf), all);
  });

  it("falls back to the operator's default table, and to nothing", () => {
    assert.equal(matchRoute(routes, 'acc-2', '+12025550100', countryOf), defaultUs);
    assert.equal(matchRoute(routes, 'acc-2', '+33612345678', countryOf), defaultAll);
    assert.equal(matchRoute([uk], 'acc-2', '+447700900123', countryOf), undefined);
  });

  it('parses the destination only when a country route could apply', () => {
    let parsed = 0;
    matchRoute([uk, gb, all], ACC, '+447700900123', () => {
      parsed++;
      return 'GB';
    });
    assert.equal(parsed, 0);
  });
});

describe('routing: the order a message tries providers in', () => {
  it('goes by priority, and splits a priority by weight, the same way for the same message', () => {
    const providers = [
      { provider: 'twilio', priority: 2, weight: 1 },
      { provider: 'smpp', priority: 1, weight: 3 },
      { provider: 'simulator', priority: 1, weight: 1 },
    ];
    const first = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const id = `0193${i.toString(16).padStart(8, '0')}-0000-7000-8000-000000000000`;
      const order = providerOrder(providers, id);
      assert.equal(order.length, 3);
      assert.equal(order[2], 'twilio');
      assert.deepEqual(providerOrder(providers, id), order);
      first.set(order[0], (first.get(order[0]) ?? 0) + 1);
    }
    const share = (first.get('smpp') ?? 0) / 4000;
    assert.ok(share > 0.7 && share < 0.8, `smpp first for ${share} of messages (weight 3 of 4)`);
  });

  it('puts weight 0 last within its priority', () => {
    const order = providerOrder(
      [
        { provider: 'smpp', priority: 1, weight: 0 },
        { provider: 'twilio', priority: 1, weight: 1 },
      ],
      'any',
    );
    assert.deepEqual(order, ['twilio', 'smpp']);
  });
});

describe('routing: the provider of an attempt', () => {
  const order = ['twilio', 'smpp', 'simulator'];
  const has = () => true;
  const up = () => true;

  it('takes the first provider whose link is up', () => {
    assert.equal(chooseProvider({ order, up, has }), 'twilio');
    assert.equal(chooseProvider({ order, up: (p) => p !== 'twilio', has }), 'smpp');
    assert.equal(chooseProvider({ order, up: () => false, has }), 'twilio');
  });

  it('moves on after a refusal or a link that was down, round the order after the last', () => {
    const refused = { code: 'TWILIO-DOWN' };
    assert.equal(chooseProvider({ order, last: { provider: 'twilio', error: refused }, up, has }), 'smpp');
    assert.equal(
      chooseProvider({ order, last: { provider: 'smpp', error: { code: 'SMPP-0x00000058' } }, up, has }),
      'simulator',
    );
    assert.equal(
      chooseProvider({ order, last: { provider: 'simulator', error: { code: 'SIM-CLOSED' } }, up, has }),
      'twilio',
    );
    assert.equal(
      chooseProvider({
        order,
        last: { provider: 'twilio', error: refused },
        up: (p) => p !== 'smpp',
        has,
      }),
      'simulator',
    );
  });

  it('stays with the provider after an attempt of unknown fate, whatever the route says', () => {
    for (const code of [
      'TWILIO-TIMEOUT',
      'TWILIO-NETWORK',
      'SMPP-TIMEOUT',
      'SMPP-DISCONNECTED',
      'SMPP-PARTIAL',
      'MSG-010',
    ]) {
      assert.equal(refusedOutright({ code }), false, code);
      assert.equal(
        chooseProvider({ order, last: { provider: 'smpp', error: { code } }, up: () => false, has }),
        'smpp',
        code,
      );
      // Even when the route no longer names it.
      assert.equal(
        chooseProvider({ order: ['twilio'], last: { provider: 'smpp', error: { code } }, up, has }),
        'smpp',
      );
    }
    // A previous attempt with no recorded error (a claim that died) is of unknown fate too.
    assert.equal(chooseProvider({ order, last: { provider: 'smpp', error: null }, up, has }), 'smpp');
  });

  it('answers nothing for an empty order (the number keeps its provider)', () => {
    assert.equal(chooseProvider({ order: [], up, has }), undefined);
  });

  it('passes over providers that cannot send the sender, after a refusal too', () => {
    const usable = (p: string) => p !== 'twilio';
    assert.equal(chooseProvider({ order, up, has, usable }), 'smpp');
    assert.equal(
      chooseProvider({
        order,
        last: { provider: 'simulator', error: { code: 'SIM-CLOSED' } },
        up,
        has,
        usable,
      }),
      'smpp',
    );
    assert.equal(chooseProvider({ order: ['twilio'], up, has, usable }), undefined);
  });
});

describe('routing: moving on at once after a refusal', () => {
  const order = ['tw1', 'carrier-a', 'carrier-b'];
  it('only to a later provider that is up and may send the sender, never round the order', () => {
    const up = () => true;
    assert.equal(movesOnAtOnce({ order, up }, 'tw1'), true);
    assert.equal(movesOnAtOnce({ order, up }, 'carrier-b'), false);
    assert.equal(movesOnAtOnce({ order, up: (p) => p === 'tw1' }, 'tw1'), false);
    assert.equal(movesOnAtOnce({ order, up: (p) => p !== 'carrier-a' }, 'tw1'), true);
    assert.equal(movesOnAtOnce({ order, up, usable: (p) => p === 'tw1' }, 'tw1'), false);
    assert.equal(movesOnAtOnce({ order, up }, 'not-in-order'), false);
  });
});

describe('routing: the sender on another provider', () => {
  const kinds: Record<string, string> = {
    twilio: 'twilio',
    tw2: 'twilio',
    smpp: 'smpp',
    'carrier-b': 'smpp',
  };
  const kindOf = (p: string) => kinds[p];
  it('keeps a Twilio number on its own account or an SMPP carrier; other numbers go anywhere', () => {
    assert.equal(senderUsable(kindOf, 'twilio', 'twilio'), true);
    assert.equal(senderUsable(kindOf, 'twilio', 'tw2'), false);
    assert.equal(senderUsable(kindOf, 'twilio', 'carrier-b'), true);
    assert.equal(senderUsable(kindOf, 'twilio', 'simulator'), true);
    assert.equal(senderUsable(kindOf, 'smpp', 'tw2'), true);
    assert.equal(senderUsable(kindOf, 'simulator', 'twilio'), true);
  });
});
