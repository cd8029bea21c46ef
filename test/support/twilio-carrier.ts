/**
 * A carrier speaking Twilio's Messages resource for the tests of attempts of unknown fate
 * (test/workers/twilio-unknown-fate.test.ts, owed-lookup-bound, reconcile-lookup-backoff), and a
 * service sending through it.
 */

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before } from 'node:test';
import type { Config } from '../../src/config.ts';
import { assignNumber } from '../../src/domain/numbers/number-assignments.ts';
import { call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { closeServer, listenLoopback, readBody, replyJson, twilioBasic } from './fake-twilio.ts';

export const SID = `AC${randomBytes(16).toString('hex')}`;
const TOKEN = 'unknown-fate-token';
/** The provider's timeout. Long enough that an answer in 2 ms is heard on a loaded machine (a lookup waits as long). */
export const TIMEOUT_MS = 2000;

/** What the carrier does with the k-th (0-based) submission to one recipient. */
export type Submission =
  | 'ok' // created and answered at once
  | 'late' // created, answered only after the provider stopped waiting
  | 'lost'; // never created, never answered (the request hangs)
/** What the carrier does with the k-th lookup (GET of the list) for one recipient. */
export type Lookup = 'ok' | 'fail' | 'hang';

export interface Script {
  submission?: (to: string, k: number) => Submission;
  lookup?: (to: string, k: number) => Lookup;
  /**
   * Lookups for a recipient are answered only once this many are waiting (or after a second, well
   * within the provider's timeout): identical messages are then settled at the same moment.
   */
  together?: number;
}

/** A message the carrier holds. */
export interface CarrierMessage {
  sid: string;
  to: string;
  from: string;
  body: string;
  at: Date;
}

/**
 * A carrier speaking Twilio's Messages resource that deduplicates nothing: every POST creates a
 * message the moment it arrives (recorded), answered as the script says; GET lists the messages
 * by To and From, as Twilio's list does, or fails as the script says. `submissions` and `lookups`
 * count the requests of each kind per recipient; `hold` puts a message in its list as if it had
 * been submitted (its answer never heard).
 */
export function twilioCarrier(script: Script) {
  const created: CarrierMessage[] = [];
  const submissions = new Map<string, number>();
  const lookups = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  const next = (counts: Map<string, number>, to: string) => {
    const k = counts.get(to) ?? 0;
    counts.set(to, k + 1);
    return k;
  };
  const hold = (m: { to: string; from: string; body: string }): CarrierMessage => {
    const held = { sid: `SM${randomBytes(16).toString('hex')}`, ...m, at: new Date() };
    created.push(held);
    return held;
  };
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== twilioBasic(SID, TOKEN)) return replyJson(res, 401, { code: 20003 });
    const url = new URL(req.url ?? '/', 'http://carrier');
    if (!url.pathname.endsWith('/Messages.json')) return replyJson(res, 404, { code: 20404 });
    if (req.method === 'GET') {
      const to = url.searchParams.get('To') ?? '';
      const from = url.searchParams.get('From');
      const kind = script.lookup?.(to, next(lookups, to)) ?? 'ok';
      if (kind === 'hang') return;
      if (kind === 'fail') return replyJson(res, 500, { code: 20500, message: 'Internal Server Error' });
      const answer = () => {
        const messages = created
          .filter((m) => m.to === to && m.from === from)
          .map((m) => ({ ...m, status: 'sent', date_created: m.at.toUTCString(), at: undefined }));
        if (!res.destroyed) replyJson(res, 200, { messages, next_page_uri: null });
      };
      if (!script.together) return answer();
      const queue = waiting.get(to) ?? [];
      waiting.set(to, queue);
      queue.push(answer);
      const release = () => {
        for (const a of queue.splice(0)) a();
      };
      if (queue.length >= script.together) release();
      else setTimeout(release, 1000);
      return;
    }
    readBody(req, (raw) => {
      const form = new URLSearchParams(raw);
      const to = form.get('To') ?? '';
      const kind = script.submission?.(to, next(submissions, to)) ?? 'ok';
      if (kind === 'lost') return;
      const m = hold({ to, from: form.get('From') ?? '', body: form.get('Body') ?? '' });
      setTimeout(
        () => {
          if (!res.destroyed) replyJson(res, 201, { sid: m.sid, to: m.to, status: 'queued' });
        },
        kind === 'late' ? TIMEOUT_MS * 3 : 2,
      );
    });
  });
  /** Every request of a kind, all recipients together. */
  const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
  return { created, submissions, lookups, hold, total, server };
}

/**
 * A service whose messages to +1… go through a Twilio-compatible carrier following `script`
 * (`overrides`: the service's settings, e.g. DELIVERY_GUARANTEE).
 */
export function withCarrier(script: Script, overrides: Partial<Config> = {}) {
  const carrier = twilioCarrier(script);
  const t = { carrier } as { carrier: typeof carrier; svc: TestService; acc: TestAccount };
  before(async () => {
    const baseUrl = await listenLoopback(carrier.server);
    t.svc = await startTestService({
      ...overrides,
      twilio: { baseUrl, accountSid: SID, authToken: TOKEN, timeoutMs: TIMEOUT_MS },
    });
    t.acc = await t.svc.newAccount({ balance: 100 });
    // The operator lets the account's numbers leave through the carrier (a route alone may not:
    // docs/routing.md, "Who may send from a number").
    const { rows } = await t.svc.db.query<{ number: string }>(
      'SELECT number FROM phone_numbers WHERE account_id = $1',
      [t.acc.accountId],
    );
    for (const { number } of rows)
      await assignNumber(
        t.svc.db,
        { accountId: t.acc.accountId, number, provider: 'twilio' },
        { id: 'test' },
      );
    const route = await call(t.svc.api, 'POST', `/v1/accounts/${t.acc.accountId}/routes`, {
      auth: t.acc.auth,
      json: { prefix: '1', providers: [{ provider: 'twilio', priority: 1 }] },
    });
    assert.equal(route.statusCode, 201, route.body);
  });
  after(async () => {
    await t.svc.close();
    await closeServer(carrier.server);
  });
  return t;
}

/** A service and account sending through a carrier of `twilioCarrier`. */
export type CarrierService = ReturnType<typeof withCarrier>;

/** Sends `template` to each mobile; answers the API's answer. */
export async function send(svc: TestService, acc: TestAccount, mobiles: string[], template: string) {
  const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/messages`, {
    auth: acc.auth,
    json: { contacts: mobiles.map((m) => ({ mobile: { number: m } })), template },
  });
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body);
}

/** The account's n outgoing messages once all are final, each with the carrier ids recorded for it. */
export async function settled(svc: TestService, acc: TestAccount, n: number) {
  return eventually(async () => {
    const rows = await outgoing(svc, acc);
    return rows.length === n && rows.every((r) => r.status !== 'queued' && r.status !== 'sending') && rows;
  }, 90_000);
}

/** The account's outgoing messages as they stand, each with the carrier ids recorded for it. */
export async function outgoing(svc: TestService, acc: TestAccount) {
  const { rows } = await svc.db.query<{
    id: string;
    to_number: string;
    status: string;
    error_code: string | null;
    price: number;
    provider_message_id: string | null;
  }>(
    // The carrier's id, where the dispatcher keeps it for receipts that name only it.
    `SELECT m.id, m.to_number, m.status, m.error->>'code' AS error_code, m.price::float8 AS price,
            (SELECT string_agg(r.ref, ',') FROM provider_refs r
             WHERE r.account_id = m.account_id AND r.message_id = m.id) AS provider_message_id
     FROM messages m WHERE m.account_id = $1 AND m.outgoing ORDER BY m.to_number, m.id`,
    [acc.accountId],
  );
  return rows;
}

/**
 * Asserts that the carrier created exactly one message for each mobile, and that each sent row
 * carries the id of its one submission (none resent, none taking another's id).
 */
export function assertEachSentOnce(
  carrier: { created: CarrierMessage[] },
  rows: { to_number: string; status: string; provider_message_id: string | null }[],
  mobiles: string[],
) {
  assert.deepEqual(carrier.created.map((c) => c.to).sort(), [...mobiles].sort());
  const sidOf = new Map(carrier.created.map((c) => [c.to, c.sid]));
  for (const r of rows) {
    assert.equal(r.status, 'sent', r.to_number);
    assert.equal(r.provider_message_id, sidOf.get(r.to_number), r.to_number);
  }
}
