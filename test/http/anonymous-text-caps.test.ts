import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { at10, meetingHelpers } from './meetings-support.ts';

describe('caps on the texts anonymous visitors can make an account pay for', () => {
  let svc: TestService;
  let a: TestAccount;
  let seq = 0;
  const mobile = () => `+1201555${String(3000 + seq++).padStart(4, '0')}`;
  const api = (rest: string) => `/v1/accounts/${a.accountId}${rest}`;
  const meetings = meetingHelpers(() => svc);

  before(async () => {
    svc = await startTestService({ anonymousTextsPerHour: { form: 3, booking: 4 } });
    a = await svc.newAccount({ balance: 100 });
  });
  after(() => svc.close());
  // The budgets are per clock hour (UTC): a test that began in an hour's last seconds counted its
  // last texts in the next hour's budget (CI at 12:59:59 saw three confirmations under a cap of two).
  beforeEach(async () => {
    const left = 3_600_000 - (Date.now() % 3_600_000);
    if (left < 20_000) await new Promise((r) => setTimeout(r, left + 100));
  });

  const newForm = async () => {
    const res = await call(svc.api, 'POST', api('/forms'), {
      auth: a.auth,
      json: { name: `Form ${seq++}`, active: true, confirmationMessage: 'Thanks for signing up!' },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data as { id: string };
  };
  const submit = (formId: string, number: string) =>
    call(svc.externals, 'POST', `/f/${formId}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ mobile: number }).toString(),
    });
  const conversions = async (formId: string) =>
    body(await call(svc.api, 'GET', api(`/forms/${formId}/conversions?limit=100`), { auth: a.auth }))
      .data as {
      confirmation: { messageId: string | null; error: { code: string } | null };
    }[];
  const outgoing = async () => {
    const { rows } = await svc.db.query(
      'SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND outgoing',
      [a.accountId],
    );
    return rows[0].n as number;
  };

  describe('hosted lead forms (FORM_CONFIRMATIONS_PER_HOUR)', () => {
    it('stores every lead but sends confirmations only up to the cap, recording FORM-005 past it', async () => {
      const f = await newForm();
      const before = await outgoing();
      for (let i = 0; i < 5; i++) {
        const res = await submit(f.id, mobile());
        assert.equal(res.statusCode, 200, res.body);
      }
      const list = await conversions(f.id);
      assert.equal(list.length, 5, 'every submission is stored');
      assert.equal(list.filter((c) => c.confirmation.messageId).length, 3);
      assert.deepEqual(
        list.filter((c) => !c.confirmation.messageId).map((c) => c.confirmation.error?.code),
        ['FORM-005', 'FORM-005'],
      );
      assert.equal((await outgoing()) - before, 3, 'only three charged texts');
    });

    it('counts each form on its own', async () => {
      const one = await newForm();
      const two = await newForm();
      for (let i = 0; i < 3; i++) assert.equal((await submit(one.id, mobile())).statusCode, 200);
      assert.equal((await submit(two.id, mobile())).statusCode, 200);
      const [c] = await conversions(two.id);
      assert.ok(c.confirmation.messageId, 'the other form still has its budget');
    });

    it('starts a new budget with the next clock hour', async () => {
      const f = await newForm();
      for (let i = 0; i < 3; i++) assert.equal((await submit(f.id, mobile())).statusCode, 200);
      // The budget row as the previous hour left it.
      await svc.db.query(
        `UPDATE anonymous_text_quotas SET window_start = window_start - interval '1 hour' WHERE owner_id = $1`,
        [f.id],
      );
      assert.equal((await submit(f.id, mobile())).statusCode, 200);
      const list = await conversions(f.id);
      assert.equal(list.filter((c) => c.confirmation.messageId).length, 4);
    });
  });

  describe('public meeting booking (BOOKING_TEXTS_PER_HOUR)', () => {
    it('books every meeting but texts (confirmation + reminder) only within the cap', async () => {
      const ev = await meetings.newEvent(a, { reminder: { minutesBefore: 60, sms: true } });
      const before = await outgoing();
      // Each booking of one attendee costs two texts (confirmation now, reminder later): the cap of 4 holds two.
      const booked = [];
      for (let day = 1; day <= 3; day++) booked.push(await meetings.book(ev.slug, at10(day)));
      assert.equal(booked.length, 3, 'every booking is made');
      assert.equal((await outgoing()) - before, 2, 'two confirmations, none for the third booking');
      const { rows } = await svc.db.query(
        'SELECT reminder_sms FROM meetings WHERE account_id = $1 AND event_id = $2 ORDER BY start_at',
        [a.accountId, ev.id],
      );
      assert.deepEqual(
        rows.map((r) => r.reminder_sms),
        [true, true, false],
      );
    });
  });
});
