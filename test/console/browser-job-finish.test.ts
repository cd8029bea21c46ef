/**
 * Issue 25: a send job's page says when the send should finish, in plain words, while messages
 * wait (here for the next day, past a number's daily cap); a finished send's page says nothing of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { body, call, eventually, type TestAccount, type TestService } from '../helpers.ts';
import { type ConsoleSession, skipWithoutChromium, startConsole } from './browser.ts';
import { screenshot } from './screenshot.ts';

describe('the web console’s send job: its expected finish', { skip: skipWithoutChromium }, () => {
  let c: ConsoleSession;
  let svc: TestService;
  let page: Page;
  let a: TestAccount;
  const api = (method: 'GET' | 'POST' | 'PUT', path: string, json?: unknown) =>
    call(svc.api, method, `/v1/accounts/${a.accountId}${path}`, { auth: a.auth, json });

  before(async () => {
    c = await startConsole();
    ({ svc, page } = c);
    a = await svc.newAccount({ balance: 50 });
    await c.signIn(a);
    await page.locator('h2', { hasText: 'Overview' }).waitFor();
  });
  after(async () => {
    await c?.close();
  });

  const sendTo = async (n: number) => {
    const contacts = Array.from({ length: n }, (_, i) => ({ mobile: { number: `+1415555031${i}` } }));
    const res = await api('POST', '/messages', { contacts, template: 'Capped' });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data.jobId as string;
  };

  it('shows when a send waiting past its number’s daily cap should finish, in plain words', async () => {
    const [n] = body(await api('GET', '/phonenumbers')).data;
    assert.equal((await api('PUT', `/phonenumbers/${n.id}`, { dailyCap: 2 })).statusCode, 200);
    const jobId = await sendTo(4);
    // The workers send 2 today; 2 wait for the next day.
    await eventually(async () => {
      const j = body(await api('GET', `/jobs/${jobId}`)).data;
      return j.counts.queued === 2 && j.counts.queued + j.counts.sent + j.counts.delivered === 4;
    });
    await page.goto(`${c.base}/console/#/jobs/${jobId}`);
    const finish = page.locator('dt', { hasText: 'Finish' });
    await finish.waitFor();
    const words = (await page.locator('dd .eta').textContent()) ?? '';
    // The 2 left wait for the account's next day: "about 00:00 tomorrow", or in the hour before
    // midnight "in about 24 minutes" (jobs.js words it by how far away it is).
    const finishAt = new Date(body(await api('GET', `/jobs/${jobId}`)).data.estimatedFinishAt);
    assert.ok(finishAt.getTime() > Date.now(), `expected to finish at ${finishAt.toISOString()}`);
    assert.match(words, /^Expected to finish (about .+|in about \d+ minutes?|within a minute)$/);
    await screenshot(page, 'job-expected-finish-1280');
    assert.deepEqual(c.problems, []);
  });

  it('says nothing of it once the send has finished', async () => {
    const [n] = body(await api('GET', '/phonenumbers')).data;
    assert.equal((await api('PUT', `/phonenumbers/${n.id}`, { dailyCap: null })).statusCode, 200);
    const contacts = [{ mobile: { number: '+14155550399' } }];
    const res = await api('POST', '/messages', { contacts, template: 'Uncapped' });
    const jobId = body(res).data.jobId;
    await eventually(async () => body(await api('GET', `/jobs/${jobId}`)).data.status === 'completed');
    await page.goto(`${c.base}/console/#/jobs/${jobId}`);
    await page.locator('dl .badge', { hasText: 'completed' }).waitFor();
    assert.equal(await page.locator('dt', { hasText: 'Finish' }).count(), 0);
    assert.deepEqual(c.problems, []);
  });
});
