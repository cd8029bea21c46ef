import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

describe('calls', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 10;
  const NOT_THERE = '01937c1e-0000-7000-8000-00000000abcd';
  /** A fresh valid caller number (+1 201 555 01NN) per use. */
  const caller = () => `+120155501${String(seq++).padStart(2, '0')}`;
  const calls = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/calls${rest}`;
  const number = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, { auth: acc.auth }))
      .data[0];
  const setVoice = async (acc: TestAccount, voice: object) => {
    const n = await number(acc);
    const res = await call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}/phonenumbers/${n.id}`, {
      auth: acc.auth,
      json: { channels: { voice } },
    });
    assert.equal(res.statusCode, 200, res.body);
    return n;
  };
  const simulate = (json: object) => call(svc.externals, 'POST', '/v1/providers/simulator/calls', { json });

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    b = await svc.newAccount();
    // A test reads the caller's contact-created event, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created']);
  });
  after(() => svc.close());

  describe('POST /v1/providers/simulator/calls', () => {
    it('takes a voicemail by default: the caller becomes a contact and the call completes with its duration', async () => {
      const ours = await number(a);
      const from = caller();
      const res = await simulate({ from, to: ours.number, duration: 42 });
      assert.equal(res.statusCode, 200, res.body);
      const c = body(res).data;
      assert.equal(c.direction, 'inbound');
      assert.equal(c.status, 'completed');
      assert.equal(c.action, 'voicemail');
      assert.equal(c.duration, 42);
      assert.equal(c.voicemail, true);
      assert.equal(c.recording, true);
      assert.ok(!('user' in c), 'no user takes a forwarded call: left out');
      assert.equal(c.from, from);
      assert.equal(c.to, ours.number);
      assert.equal(c.contact.mobile.number, from);
      assert.equal(c.phoneNumber.id, ours.id);
      assert.equal(c.group.isDefault, true);
      assert.ok(c.ended);
      const { rows } = await svc.db.query(
        `SELECT data FROM events WHERE account_id = $1 AND type = 'contact-created'`,
        [a.accountId],
      );
      assert.ok(
        rows.some((r) => r.data.id === c.contact.id),
        'contact-created emitted for the caller',
      );
    });

    it('finds the existing contact of a caller who called before', async () => {
      const ours = await number(a);
      const from = caller();
      const first = body(await simulate({ from, to: ours.number })).data;
      const second = body(await simulate({ from, to: ours.number })).data;
      assert.notEqual(first.id, second.id);
      assert.equal(first.contact.id, second.contact.id);
    });

    it('forwards when the number says so, and reports no-answer and busy outcomes', async () => {
      const ours = await setVoice(b, {
        active: true,
        incoming: { action: 'forward', forwardTo: '+12025550123' },
      });
      const done = body(await simulate({ from: caller(), to: ours.number, duration: 7 })).data;
      assert.equal(done.action, 'forward');
      assert.equal(done.forwardedTo, '+12025550123');
      assert.equal(done.status, 'completed');
      assert.equal(done.voicemail, false);
      assert.equal(done.recording, false);
      const missed = body(await simulate({ from: caller(), to: ours.number, outcome: 'no-answer' })).data;
      assert.equal(missed.status, 'no-answer');
      assert.equal(missed.duration, 0);
      const busy = body(await simulate({ from: caller(), to: ours.number, outcome: 'busy' })).data;
      assert.equal(busy.status, 'busy');
    });

    it('rejects calls (busy) while the number’s voice channel is inactive', async () => {
      const ours = await setVoice(b, { active: false });
      const c = body(await simulate({ from: caller(), to: ours.number })).data;
      assert.equal(c.action, 'reject');
      assert.equal(c.status, 'busy');
      await setVoice(b, { active: true, incoming: { action: 'forward', forwardTo: '+12025550123' } });
    });

    it('treats a repeated carrier call id as the same call', async () => {
      const ours = await number(a);
      const id = `SIMCA-repeat-${seq++}`;
      const from = caller();
      const first = body(await simulate({ from, to: ours.number, id })).data;
      const again = body(await simulate({ from, to: ours.number, id })).data;
      assert.equal(first.id, again.id);
      const { rows } = await svc.db.query(
        'SELECT count(*)::int AS n FROM calls WHERE provider_call_id = $1',
        [id],
      );
      assert.equal(rows[0].n, 1);
    });

    it('answers 400 CONT-001 for an invalid caller, 404 PROV-002 for a number nobody holds, 400 for bad input', async () => {
      const ours = await number(a);
      const bad = await simulate({ from: 'not a number', to: ours.number });
      assert.equal(bad.statusCode, 400);
      assert.equal(body(bad).error.code, 'CONT-001');
      const nobody = await simulate({ from: caller(), to: '+12125550999' });
      assert.equal(nobody.statusCode, 404);
      assert.equal(body(nobody).error.code, 'PROV-002');
      const outcome = await simulate({ from: caller(), to: ours.number, outcome: 'exploded' });
      assert.equal(outcome.statusCode, 400);
      assert.equal(body(outcome).error.code, 'VAL-001');
    });
    it('answers malformed input with a 4xx in the error envelope, never a 5xx', async () => {
      const ours = (await number(a)).number;
      const junk: unknown[] = [null, '', ' ', 'x'.repeat(5000), -1, 1e308, 0.5, true, [], {}, '\u0000', '😀'];
      for (const v of junk) {
        for (const json of [
          v,
          { from: v, to: ours },
          { from: caller(), to: v },
          { from: caller(), to: ours, outcome: v, duration: v },
        ]) {
          const res = await simulate(json as object);
          assert.ok(
            res.statusCode >= 400 && res.statusCode < 500,
            `${JSON.stringify(json)} → ${res.statusCode}`,
          );
          assert.equal(body(res).success, false);
        }
      }
    });
  });

  describe('GET /v1/accounts/:accountId/calls', () => {
    it('lists the account’s calls newest first with pagination', async () => {
      const ours = await number(a);
      await simulate({ from: caller(), to: ours.number });
      const latest = body(await simulate({ from: caller(), to: ours.number })).data;
      const res = await call(svc.api, 'GET', calls(a, '?limit=1'), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const page = body(res);
      assert.equal(page.data.length, 1);
      assert.equal(page.data[0].id, latest.id);
      assert.equal(page.pagination.limit, 1);
      assert.equal(page.pagination.offset, 0);
      assert.equal(page.pagination.hasNext, true);
      assert.ok(page.pagination.totalCount >= 2);
      assert.equal(page.data[0].contact.id, latest.contact.id);
      assert.equal(page.data[0].phoneNumber.number, ours.number);
    });

    it('filters by status, direction, contact and creation range', async () => {
      const ours = await number(b);
      const from = caller();
      const missed = body(await simulate({ from, to: ours.number, outcome: 'no-answer' })).data;
      const list = async (qs: string) =>
        body(await call(svc.api, 'GET', calls(b, `?limit=100&${qs}`), { auth: b.auth })).data as {
          id: string;
        }[];
      const byStatus = await list('status=no-answer');
      assert.ok(byStatus.some((c) => c.id === missed.id));
      assert.ok(byStatus.every((c: any) => c.status === 'no-answer'));
      const byContact = await list(`contactId=${missed.contact.id}`);
      assert.deepEqual(
        byContact.map((c) => c.id),
        [missed.id],
      );
      assert.equal((await list('direction=outbound')).length, 0);
      assert.ok((await list('direction=inbound')).some((c) => c.id === missed.id));
      const created = new Date(missed.created.at).getTime();
      const inRange = await list(
        `from=${new Date(created - 1000).toISOString()}&to=${new Date(created + 1000).toISOString()}`,
      );
      assert.ok(inRange.some((c) => c.id === missed.id));
      const after = await list(`from=${new Date(created + 1000).toISOString()}`);
      assert.ok(!after.some((c) => c.id === missed.id));
    });

    it('never shows another account’s calls', async () => {
      const theirs = body(await simulate({ from: caller(), to: (await number(b)).number })).data;
      const mine = body(await call(svc.api, 'GET', calls(a, '?limit=100'), { auth: a.auth })).data;
      assert.ok(!mine.some((c: { id: string }) => c.id === theirs.id));
    });

    it('answers 401 without a valid token and 400 for invalid filters', async () => {
      assert.equal((await call(svc.api, 'GET', calls(a))).statusCode, 401);
      const badToken = await call(svc.api, 'GET', calls(a), { auth: { authorization: 'Bearer nope' } });
      assert.equal(badToken.statusCode, 401);
      for (const qs of [
        'limit=0',
        'limit=101',
        'offset=-1',
        'status=exploded',
        'contactId=x',
        'from=yesterday',
      ]) {
        const res = await call(svc.api, 'GET', calls(a, `?${qs}`), { auth: a.auth });
        assert.equal(res.statusCode, 400, qs);
        assert.equal(body(res).error.code, 'VAL-001');
      }
    });

    it('answers 403 for another account’s path', async () => {
      const res = await call(svc.api, 'GET', calls(b), { auth: a.auth });
      assert.equal(res.statusCode, 403);
    });
  });

  describe('GET /v1/accounts/:accountId/calls/:callId', () => {
    it('answers the call in the Call shape', async () => {
      const ours = await number(a);
      const made = body(await simulate({ from: caller(), to: ours.number, duration: 3 })).data;
      const res = await call(svc.api, 'GET', calls(a, `/${made.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200, res.body);
      const c = body(res).data;
      assert.deepEqual(c, made);
      for (const key of ['id', 'direction', 'status', 'contact', 'phoneNumber', 'created', 'group']) {
        assert.ok(key in c, key);
      }
      // `user` is unset (no user takes a forwarded call): left out, never null.
      assert.ok(!('user' in c));
      assert.equal(typeof c.duration, 'number');
      assert.equal(typeof c.voicemail, 'boolean');
      assert.equal(typeof c.recording, 'boolean');
    });

    it('answers 404 CALL-001 for another account’s call, an unknown id and a non-id', async () => {
      const theirs = body(await simulate({ from: caller(), to: (await number(b)).number })).data;
      for (const id of [theirs.id, NOT_THERE, 'not-an-id']) {
        const res = await call(svc.api, 'GET', calls(a, `/${id}`), { auth: a.auth });
        assert.equal(res.statusCode, 404, id);
        assert.equal(body(res).error.code, 'CALL-001');
      }
    });

    it('answers 401 without a token', async () => {
      assert.equal((await call(svc.api, 'GET', calls(a, `/${NOT_THERE}`))).statusCode, 401);
    });
  });
});
