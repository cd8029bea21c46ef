import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('a send’s report credits only what came after it, and shows opted-out recipients apart', () => {
  let svc: TestService;
  let a: TestAccount;
  let ours: string;
  const v1 = (p: string) => `/v1/accounts/${a.accountId}${p}`;
  const inbound = async (from: string, text: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: ours, text },
    });
    assert.equal(res.statusCode, 200, res.body);
  };

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
    ours = body(await call(svc.api, 'GET', v1('/phonenumbers'), { auth: a.auth })).data[0].number;
  });
  after(() => svc.close());

  it('does not count a reply or an opt-out from before the send, nor an opted-out recipient as failed', async () => {
    // Before the send: one contact writes in, another opts out.
    await inbound('+12025550211', 'Do you open on Sunday?');
    await inbound('+12025550212', 'STOP');
    const send = await call(svc.api, 'POST', v1('/messages'), {
      auth: a.auth,
      json: {
        contacts: ['+12025550211', '+12025550212', '+12025550213'].map((number) => ({ mobile: { number } })),
        template: 'Sunday sale',
      },
    });
    assert.equal(send.statusCode, 200, send.body);
    const { jobId, queued, failed } = body(send).data;
    assert.equal(queued, 2);
    assert.equal(failed, 1);
    // After it: one recipient replies, another opts out.
    await inbound('+12025550213', 'Great, see you');
    await inbound('+12025550211', 'STOP');

    const report = body(
      await call(svc.api, 'GET', v1(`/reports/summary?jobId=${jobId}`), { auth: a.auth }),
    ).data;
    assert.equal(
      report.totals.replies,
      2,
      'the reply and the STOP after the send; not the question before it',
    );
    assert.equal(report.totals.optOuts, 1, 'the opt-out after the send; not the one before it');
    assert.equal(report.totals.failed, 0, 'the opted-out recipient is not a failure');
    assert.equal(report.totals.optedOut, 1);
    const day = report.days.find((d: { optedOut: number }) => d.optedOut > 0);
    assert.equal(day.optedOut, 1);
  });
});
