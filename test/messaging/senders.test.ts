import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { suitableSenders } from '../../src/messaging/senders.ts';
import { startTestService, type TestService } from '../helpers.ts';

const US1 = randomUUID();
const US2 = randomUUID();
const GB = randomUUID();

describe('suitableSenders (which numbers may send to a country)', () => {
  it('answers nothing when there is no choice to make', () => {
    assert.equal(suitableSenders([{ id: US1, country: 'US' }]), undefined);
    assert.equal(
      suitableSenders([
        { id: US1, country: 'US' },
        { id: US2, country: 'us' },
      ]),
      undefined,
    );
  });

  it('lists, per country in capitals, the numbers of that country and those that name it, in pool order', () => {
    assert.deepEqual(
      suitableSenders([
        { id: US1, country: 'US' },
        { id: GB, country: 'GB', destinations: ['ie', 'US'] },
        { id: US2, country: 'US' },
      ]),
      { US: [US1, GB, US2], GB: [GB], IE: [GB] },
    );
  });
});

describe('sparrow_pick_sender (the sender of a recipient with no conversation)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  async function pick(contacts: string[], country: string | null, pool: string[], byCountry: object | null) {
    const { rows } = await svc.db.query<{ id: string }>(
      `SELECT sparrow_pick_sender(c, $2::text, $3::uuid[], $4::jsonb)::text AS id
       FROM unnest($1::uuid[]) WITH ORDINALITY AS x(c, i) ORDER BY i`,
      [contacts, country, pool, byCountry === null ? null : JSON.stringify(byCountry)],
    );
    return rows.map((r) => r.id);
  }
  const contacts = Array.from({ length: 200 }, () => randomUUID());

  it('gives a contact the same number every time, and spreads contacts over the pool', async () => {
    const first = await pick(contacts, 'US', [US1, US2, GB], null);
    assert.deepEqual(await pick(contacts, 'US', [US1, US2, GB], null), first);
    for (const id of [US1, US2, GB]) assert.ok(first.includes(id), `some contact gets ${id}`);
  });

  it('picks among the numbers suitable for the recipient’s country (in any case) when there are some', async () => {
    const byCountry = { US: [US1, US2], GB: [GB] };
    const us = await pick(contacts, 'us', [US1, US2, GB], byCountry);
    assert.ok(us.every((id) => id === US1 || id === US2));
    assert.ok(us.includes(US1) && us.includes(US2));
    assert.deepEqual(new Set(await pick(contacts, 'GB', [US1, US2, GB], byCountry)), new Set([GB]));
  });

  it('falls back to the whole pool for a country no number suits, or an unknown one', async () => {
    const byCountry = { GB: [GB] };
    assert.deepEqual(
      await pick(contacts, 'FR', [US1, US2, GB], byCountry),
      await pick(contacts, 'FR', [US1, US2, GB], null),
    );
    assert.deepEqual(
      await pick(contacts, null, [US1, US2, GB], byCountry),
      await pick(contacts, null, [US1, US2, GB], null),
    );
  });
});
