/**
 * The bound of a live attempt's owed lookups (settle-uncertain.ts, settleOwed): after
 * LOOKUP_BACKOFF.maxAttempts (8) failed lookups DELIVERY_GUARANTEE decides. Waiting for it would take
 * about 4 minutes of backoff: each test makes a real attempt of unknown fate (its first lookup
 * fails), then sets the message's count of failed lookups to just below the bound and makes it due
 * now, as if the lookups between had failed on their backoff, and drives the dispatch rounds itself.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOOKUP_BACKOFF } from '../../src/domain/send/dispatch/settle-uncertain.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, type TestAccount, type TestService } from '../helpers.ts';
import { type CarrierService, outgoing, send, withCarrier } from '../support/twilio-carrier.ts';

const MAX = LOOKUP_BACKOFF.maxAttempts as number;

/** One dispatch round, driven by the test (it ends once what it claimed is recorded). */
async function round(svc: TestService): Promise<void> {
  await dispatch.run(svc.ctx, new AbortController().signal);
}

async function balance(svc: TestService, acc: TestAccount): Promise<number> {
  return body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth })).data
    .balance;
}

/** The message's lookup state as the dispatcher keeps it. */
async function owed(svc: TestService, id: string) {
  const { rows } = await svc.db.query<{
    status: string;
    attempts: number;
    owing: boolean;
    lookup_failures: number;
    due: boolean;
  }>(
    `SELECT status, attempts, uncertain_since IS NOT NULL AS owing, lookup_failures,
            coalesce(not_before <= now(), true) AS due
     FROM messages WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** As if the lookups before were made and failed on their backoff: `failures` failed, the next due now. */
async function failedSoFar(svc: TestService, id: string, failures: number): Promise<void> {
  await svc.db.query('UPDATE messages SET lookup_failures = $2, not_before = now() WHERE id = $1', [
    id,
    failures,
  ]);
}

/**
 * Sends one message whose first submission the carrier loses (its fate unknown) and whose first
 * lookup fails: the message owes its lookup. Then brings it to the lookup before the last, which
 * fails too (still owed, nothing sent), and makes the last one due. Answers the message's id.
 */
async function owingTheLastLookup(t: CarrierService, mobile: string): Promise<string> {
  await send(t.svc, t.acc, [mobile], 'Your code is 7788');
  await round(t.svc);
  const [m] = await outgoing(t.svc, t.acc);
  assert.deepEqual(await owed(t.svc, m.id), {
    status: 'queued',
    attempts: 1,
    owing: true,
    lookup_failures: 1,
    due: false,
  });
  // The lookup before the last fails as well: the message still owes it, nothing is sent.
  await failedSoFar(t.svc, m.id, MAX - 2);
  await round(t.svc);
  assert.deepEqual(await owed(t.svc, m.id), {
    status: 'queued',
    attempts: 1,
    owing: true,
    lookup_failures: MAX - 1,
    due: false,
  });
  assert.equal(t.carrier.total(t.carrier.submissions), 1, 'nothing resent while its lookup is owed');
  assert.equal(t.carrier.total(t.carrier.lookups), 2);
  // Its backoff passed: the last lookup is due.
  await failedSoFar(t.svc, m.id, MAX - 1);
  return m.id;
}

// The first submission is lost (never created at the carrier, never answered); every lookup fails.
const script = {
  submission: (_to: string, k: number) => (k === 0 ? ('lost' as const) : ('ok' as const)),
  lookup: () => 'fail' as const,
};

describe('the last owed lookup fails under at-most-once', () => {
  const t = withCarrier(script, { deliveryGuarantee: 'at-most-once' });

  it(`fails the message with MSG-020 after ${MAX} failed lookups, refunds it, sends nothing more`, async () => {
    const before = await balance(t.svc, t.acc);
    const id = await owingTheLastLookup(t, '+12025400000');
    await round(t.svc);

    const [m] = await outgoing(t.svc, t.acc);
    assert.equal(m.id, id);
    assert.equal(m.status, 'failed');
    assert.equal(m.error_code, 'MSG-020');
    assert.equal(m.price, 0);
    assert.equal(await balance(t.svc, t.acc), before, 'its price given back');
    const api = body(
      await call(t.svc.api, 'GET', `/v1/accounts/${t.acc.accountId}/messages/${id}`, { auth: t.acc.auth }),
    ).data;
    assert.equal(api.status, 'failed');
    assert.equal(api.error.code, 'MSG-020');
    // The last lookup was made (and failed); nothing reached the carrier, before or after.
    assert.equal(t.carrier.total(t.carrier.lookups), 3);
    assert.equal(t.carrier.total(t.carrier.submissions), 1, 'only the lost first attempt');
    assert.equal(t.carrier.created.length, 0);
    // Settled for good: later rounds neither ask nor send.
    await round(t.svc);
    assert.equal(t.carrier.total(t.carrier.lookups), 3);
    assert.equal(t.carrier.total(t.carrier.submissions), 1);
  });
});

describe('the last owed lookup fails under at-least-once', () => {
  const t = withCarrier(script, { deliveryGuarantee: 'at-least-once' });

  it(`sends the message again, exactly once, after ${MAX} failed lookups`, async () => {
    const id = await owingTheLastLookup(t, '+12025400001');
    const charged = await balance(t.svc, t.acc);
    await round(t.svc);

    const [m] = await outgoing(t.svc, t.acc);
    assert.equal(m.id, id);
    assert.equal(m.status, 'sent');
    assert.equal(t.carrier.created.length, 1, 'submitted again once');
    assert.equal(m.provider_message_id, t.carrier.created[0].sid);
    assert.equal(t.carrier.total(t.carrier.submissions), 2, 'the lost attempt and one resend');
    assert.equal(t.carrier.total(t.carrier.lookups), 3, 'the last lookup was made first');
    assert.equal(await balance(t.svc, t.acc), charged, 'charged once, nothing refunded');
    await round(t.svc);
    assert.equal(t.carrier.total(t.carrier.submissions), 2);
  });
});
