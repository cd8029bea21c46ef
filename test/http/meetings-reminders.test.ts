import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { task } from '../../src/workers/index.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { at10, MINUTE, meetingHelpers } from './meetings-support.ts';

const meetingReminders = task('meeting-reminders');

describe('meeting timers', () => {
  let svc: TestService;
  let a: TestAccount;
  const { meetings, newEvent, book } = meetingHelpers(() => svc);
  const runReminders = () => meetingReminders.run(svc.ctx, new AbortController().signal);
  const textsTo = async (contactId: string, pattern: RegExp) =>
    body(
      await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages?contactId=${contactId}&limit=100`, {
        auth: a.auth,
      }),
    ).data.filter((m: { message: string }) => pattern.test(m.message));

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
  });
  after(() => svc.close());

  describe('meeting-reminders worker', () => {
    it('texts each attendee once when the reminder is due, never for a cancelled meeting', async () => {
      const e = await newEvent(a, { reminder: { minutesBefore: 60 } });
      const m = await book(e.slug, at10(3));
      const gone = await book(e.slug, at10(4));
      await call(svc.api, 'PUT', meetings(a, `/${gone.id}/cancel`), { auth: a.auth });
      const { rows } = await svc.db.query('SELECT reminder_due_at FROM meetings WHERE id = $1', [m.id]);
      assert.equal(
        new Date(rows[0].reminder_due_at).toISOString(),
        new Date(Date.parse(at10(3)) - 60 * MINUTE).toISOString(),
      );
      await runReminders();
      assert.equal((await textsTo(m.attendees[0].id, /reminder/)).length, 0, 'not due yet');
      await svc.db.query(
        `UPDATE meetings SET reminder_due_at = now() - interval '1 minute' WHERE id = ANY($1)`,
        [[m.id, gone.id]],
      );
      await runReminders();
      await runReminders();
      const texts = await textsTo(m.attendees[0].id, /reminder/);
      assert.equal(texts.length, 1);
      assert.match(texts[0].message, /reminder: "Demo" on /);
      assert.equal((await textsTo(gone.attendees[0].id, /reminder/)).length, 0);
      const sent = await svc.db.query('SELECT reminder_sent_at FROM meetings WHERE id = $1', [m.id]);
      assert.ok(sent.rows[0].reminder_sent_at);
    });

    it('marks a reminder without SMS as sent without a text', async () => {
      const e = await newEvent(a, { reminder: { minutesBefore: 30, sms: false } });
      const m = await book(e.slug, at10(3));
      await svc.db.query(`UPDATE meetings SET reminder_due_at = now() - interval '1 minute' WHERE id = $1`, [
        m.id,
      ]);
      await runReminders();
      assert.equal((await textsTo(m.attendees[0].id, /reminder/)).length, 0);
      const sent = await svc.db.query('SELECT reminder_sent_at FROM meetings WHERE id = $1', [m.id]);
      assert.ok(sent.rows[0].reminder_sent_at);
    });

    it('marks meetings completed after their end', async () => {
      const e = await newEvent(a);
      const m = await book(e.slug, at10(3));
      await svc.db.query(
        `UPDATE meetings SET start_at = now() - interval '2 hours', end_at = now() - interval '90 minutes',
                blocked_until = now() - interval '90 minutes' WHERE id = $1`,
        [m.id],
      );
      await runReminders();
      const { rows } = await svc.db.query('SELECT status FROM meetings WHERE id = $1', [m.id]);
      assert.equal(rows[0].status, 'completed');
      const listed = body(
        await call(svc.api, 'GET', meetings(a, `?eventId=${e.id}&status=completed`), { auth: a.auth }),
      );
      assert.deepEqual(
        listed.data.map((x: { id: string; status: string }) => [x.id, x.status]),
        [[m.id, 'completed']],
      );
    });
  });
});
