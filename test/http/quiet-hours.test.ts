import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quietHoursEnd } from '../../src/messaging/quiet-hours.ts';
import { dispatch } from '../../src/workers/dispatch.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const HOUR = 3_600_000;

/** A fixed-offset zone whose clocks read hour `h` (and the current minute) right now, and its offset. */
function zoneAtHour(h: number): { zone: string; offset: number } {
  let o = (h - new Date().getUTCHours() + 48) % 24;
  if (o > 14) o -= 24;
  // Etc/GMT names carry the inverted sign: Etc/GMT-3 is UTC+3.
  return { zone: o === 0 ? 'Etc/GMT' : `Etc/GMT${o > 0 ? '-' : '+'}${Math.abs(o)}`, offset: o };
}

describe('quiet hours', () => {
  it('holds a marketing send from 21:00 until 8:00 in the zone, across a DST change', () => {
    const ny = 'America/New_York';
    // 2026-03-08 is the spring-forward night in New York (02:00 EST → 03:00 EDT).
    assert.equal(quietHoursEnd(ny, Date.parse('2026-03-07T16:00:00Z')), null, '11:00 EST');
    assert.equal(
      quietHoursEnd(ny, Date.parse('2026-03-08T02:30:00Z'))?.toISOString(), // 21:30 EST on the 7th
      '2026-03-08T12:00:00.000Z', // 08:00 EDT on the 8th
    );
    assert.equal(
      quietHoursEnd(ny, Date.parse('2026-03-08T06:00:00Z'))?.toISOString(), // 01:00 EST on the 8th
      '2026-03-08T12:00:00.000Z',
    );
    assert.equal(quietHoursEnd(ny, Date.parse('2026-03-08T12:00:00Z')), null, '08:00 EDT exactly');
    assert.equal(quietHoursEnd(ny, Date.parse('2026-03-09T00:59:00Z')), null, '20:59 EDT');
    assert.equal(
      quietHoursEnd('UTC', Date.parse('2026-11-22T21:00:00Z'))?.toISOString(),
      '2026-11-23T08:00:00.000Z',
    );
  });

  describe('campaign sends (QUIET_HOURS_ENABLED on)', () => {
    let svc: TestService;
    let seq = 0;
    before(async () => {
      svc = await startTestService({ quietHoursEnabled: true });
    });
    after(() => svc.close());

    async function quickCampaignIn(zone: string): Promise<{ acc: TestAccount; jobId: string }> {
      const acc = await svc.newAccount();
      await svc.db.query('UPDATE accounts SET timezone = $2 WHERE id = $1', [acc.accountId, zone]);
      const base = `/v1/accounts/${acc.accountId}`;
      const list = body(
        await call(svc.api, 'POST', `${base}/lists`, { auth: acc.auth, json: { name: `L${seq++}` } }),
      ).data;
      const contact = body(
        await call(svc.api, 'POST', `${base}/contacts`, {
          auth: acc.auth,
          json: { mobile: `+1201${String(8_100_000 + seq++).padStart(7, '0')}` },
        }),
      ).data;
      await call(svc.api, 'POST', `${base}/lists/${list.id}/contacts`, {
        auth: acc.auth,
        json: { contactIds: [contact.id] },
      });
      const groups = body(await call(svc.api, 'GET', `${base}/groups`, { auth: acc.auth })).data;
      const res = await call(svc.api, 'POST', `${base}/quickcampaigns`, {
        auth: acc.auth,
        json: { name: 'Night sale', groupId: groups[0].id, listId: list.id, message: { message: 'Sale!' } },
      });
      assert.equal(res.statusCode, 200, res.body);
      return { acc, jobId: body(res).data.job.id };
    }
    const statuses = async (acc: TestAccount, jobId: string) =>
      body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages?jobId=${jobId}`, {
          auth: acc.auth,
        }),
      ).data.map((m: { status: string }) => m.status);

    it('queues and charges a send made at night, and dispatches it only from 8:00 local', async () => {
      const { zone, offset } = zoneAtHour(2);
      const { acc, jobId } = await quickCampaignIn(zone);
      for (let i = 0; i < 3; i++) await dispatch.run(svc.ctx, new AbortController().signal);
      assert.deepEqual(await statuses(acc, jobId), ['queued']);
      const { rows } = await svc.db.query<{ not_before: Date }>(
        'SELECT not_before FROM dispatch_cursors WHERE account_id = $1 AND job_id = $2',
        [acc.accountId, jobId],
      );
      const localNow = Date.now() + offset * HOUR;
      const expected = Math.floor(localNow / (24 * HOUR)) * 24 * HOUR + 8 * HOUR - offset * HOUR;
      assert.equal(rows[0].not_before.getTime(), expected, 'today 08:00 in the zone');
      // Time passes: the hold ends.
      await svc.db.query(
        `UPDATE dispatch_cursors SET not_before = now() - interval '1 second' WHERE job_id = $1`,
        [jobId],
      );
      await dispatch.run(svc.ctx, new AbortController().signal);
      assert.notDeepEqual(await statuses(acc, jobId), ['queued']);
    });

    it('sends a campaign made in the daytime at once', async () => {
      const { zone } = zoneAtHour(12);
      const { acc, jobId } = await quickCampaignIn(zone);
      await dispatch.run(svc.ctx, new AbortController().signal);
      const [status] = await statuses(acc, jobId);
      assert.ok(status === 'sent' || status === 'delivered', status);
    });
  });
});
