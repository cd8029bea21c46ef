/**
 * The integrations worker (issue 29): Sparrow → CRM (opt-outs and opt-ins written to the CRM record,
 * messages logged on it, each once), and what survives a `sparrow worker` process killed with
 * SIGKILL mid-sync and mid-write.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runIntegrationsRound } from '../../src/domain/integrations/run-integrations.ts';
import { task } from '../../src/workers/index.ts';
import {
  body,
  call,
  eventually,
  startTestService,
  type TestAccount,
  type TestService,
  within,
} from '../helpers.ts';
import {
  type HubspotServer,
  hubspotServer,
  type PipedriveServer,
  pipedriveServer,
} from '../support/crm-servers.ts';
import { listenToEvents } from '../support/listen.ts';
import { workerProcesses } from '../support/worker-processes.ts';

const HOUR_AGO = Date.now() - 3_600_000;

/** Runs worker rounds until none finds a due connection (bounded). */
async function drainRounds(svc: TestService, max = 50): Promise<void> {
  let n = 0;
  while (n < max && (await runIntegrationsRound(svc.ctx))) n++;
  assert.ok(n < max, 'the integrations worker kept finding work');
}

/** The lease of a killed worker runs out (made so without waiting its 60 s). */
async function expireLeases(svc: TestService) {
  await svc.db.query(
    `UPDATE integrations SET lease_until = now() - interval '1 second' WHERE lease_until IS NOT NULL`,
  );
  await svc.db.query(
    `UPDATE integration_pushes SET lease_until = now() - interval '1 second', next_at = now() - interval '1 second'
      WHERE status = 'sending'`,
  );
  await svc.db.query(`UPDATE integrations SET push_due_at = now() WHERE push_due_at IS NOT NULL`);
}

async function ourNumber(svc: TestService, accountId: string): Promise<string> {
  const { rows } = await svc.db.query(
    `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
    [accountId],
  );
  return rows[0].number;
}

describe('Sparrow → CRM: opt-outs, opt-ins and messages', () => {
  let svc: TestService;
  let a: TestAccount;
  let hub: HubspotServer;
  let ours: string;
  const text = async (from: string, t: string) => {
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: ours, text: t },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  /** Rounds until `check` holds; events are taken once they are 5 s old, so this polls (bounded). */
  const until = (check: () => boolean) =>
    eventually(
      async () => {
        await drainRounds(svc);
        return check();
      },
      30_000,
      250,
    );

  before(async () => {
    hub = await hubspotServer();
    hub.tokens.add('pat-good');
    svc = await startTestService({ crm: { hubspotBase: hub.url, pipedriveBase: 'http://127.0.0.1:9' } });
    a = await svc.newAccount();
    ours = await ourNumber(svc, a.accountId);
    hub.upsert('60000000001', { firstname: 'Ann', mobilephone: '+12015550171' }, HOUR_AGO);
    hub.upsert('60000000002', { firstname: 'Bob', mobilephone: '+12015550172' }, HOUR_AGO);
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/integrations`, {
      auth: a.auth,
      json: { type: 'hubspot', accessToken: 'pat-good' },
    });
    assert.equal(res.statusCode, 201, res.body);
    await drainRounds(svc);
  });
  after(async () => {
    await svc.close();
    await hub.close();
  });

  it('writes a STOP to sparrow_opted_out (creating the property on PROPERTY_DOESNT_EXIST), a START to sparrow_opted_in', async () => {
    assert.equal(hub.properties.has('sparrow_opted_out'), false);
    await text('+12015550171', 'STOP');
    const ann = () => hub.contacts.find((c) => c.id === '60000000001');
    await until(() => !!ann()?.properties.sparrow_opted_out);
    assert.match(String(ann()?.properties.sparrow_opted_out), /^\d{4}-\d\d-\d\d$/);
    const created = hub.requests.find((r) => r.path === '/crm/v3/properties/contacts');
    assert.deepEqual(Object.keys(created?.body as object).sort(), [
      'fieldType',
      'groupName',
      'label',
      'name',
      'type',
    ]);
    await text('+12015550171', 'START');
    await until(() => !!ann()?.properties.sparrow_opted_in);
    // Bob never opted out: nothing written to him.
    assert.equal(hub.contacts.find((c) => c.id === '60000000002')?.properties.sparrow_opted_out, undefined);
  });

  it('logs a message sent to a synced contact once it is sent', async () => {
    svc.startWorkers([task('dispatch')]);
    const { rows } = await svc.db.query(
      'SELECT id FROM contacts WHERE account_id = $1 AND mobile_number = $2',
      [a.accountId, '+12015550172'],
    );
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { contacts: [{ id: rows[0].id }], template: 'Your order shipped' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const shipped = () =>
      hub.communications.filter((c) => c.properties.hs_communication_body.includes('Your order shipped'));
    await until(() => shipped().length === 1);
    assert.match(shipped()[0].properties.hs_communication_body, /^SMS sent to \+12015550172/);
    assert.deepEqual(shipped()[0].contactIds, ['60000000002']);
  });

  it('logs messages on the contact as SMS Communications, in batches, never twice', async () => {
    await text('+12015550172', 'Hello from Bob');
    await text('+12015550172', 'Second line');
    await text('+12015559999', 'Not a synced contact');
    const bobs = () => hub.communications.filter((c) => c.contactIds.includes('60000000002'));
    await until(
      () =>
        bobs().filter((c) => /Hello from Bob|Second line/.test(c.properties.hs_communication_body)).length >=
        2,
    );
    for (const c of bobs()) {
      assert.equal(c.properties.hs_communication_channel_type, 'SMS');
      assert.equal(c.properties.hs_communication_logged_from, 'CRM');
    }
    assert.ok(
      bobs().some((c) =>
        /SMS received from \+12015550172 .*Hello from Bob/s.test(c.properties.hs_communication_body),
      ),
    );
    assert.equal(
      hub.communications.filter((c) => c.properties.hs_communication_body.includes('Not a synced')).length,
      0,
    );
    // More rounds write nothing again: no marker (one per event) appears twice.
    await svc.db.query(`UPDATE integrations SET push_due_at = now(), sync_due_at = now()`);
    await drainRounds(svc);
    const markers = hub.communications.map(
      (c) => /\[(sparrow:[^\]]+)\]$/.exec(c.properties.hs_communication_body)?.[1],
    );
    assert.ok(markers.every((m) => m !== undefined));
    assert.equal(new Set(markers).size, markers.length);
    const got = body(await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/integrations`, { auth: a.auth }))
      .data[0];
    assert.ok(got.counts.pushed >= 4, JSON.stringify(got.counts));
    assert.equal(got.counts.pushFailed, 0);
  });
});

describe('a sparrow worker process killed with SIGKILL', () => {
  let svc: TestService;
  let a: TestAccount;
  let hub: HubspotServer;
  let pd: PipedriveServer;
  let ours: string;
  const spawnWorker = workerProcesses();
  const worker = () =>
    spawnWorker({
      DATABASE_URL: svc.config.databaseUrl as string,
      HUBSPOT_API_BASE: hub.url,
      PIPEDRIVE_API_BASE: pd.url,
      WEBHOOKS_ALLOW_PRIVATE: 'true',
    });

  before(async () => {
    [hub, pd] = await Promise.all([hubspotServer(), pipedriveServer()]);
    hub.tokens.add('pat-good');
    pd.tokens.add('pd-good');
    svc = await startTestService({ crm: { hubspotBase: hub.url, pipedriveBase: pd.url } });
    a = await svc.newAccount();
    // The test counts the sync's contact-created events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created']);
    ours = await ourNumber(svc, a.accountId);
  });
  after(async () => {
    await svc.close();
    await Promise.all([hub.close(), pd.close()]);
  });

  it('mid-sync: the next worker resumes at the page it stopped on, and no contact is imported twice', async () => {
    for (let i = 0; i < 500; i++)
      hub.upsert(
        String(70_000_000_000 + i),
        { firstname: `K${i}`, mobilephone: `+1201555${4000 + i}` },
        HOUR_AGO + i,
      );
    // The fourth page is never answered: the worker is killed waiting for it.
    hub.holdIf = (r) => r.path.includes('after=300');
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/integrations`, {
      auth: a.auth,
      json: { type: 'hubspot', accessToken: 'pat-good' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = body(res).data.id;
    const first = worker();
    await within(hub.heldWrite(), 60_000, 'the worker reaching page 4');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const { rows } = await svc.db.query('SELECT sync_state FROM integrations WHERE id = $1', [id]);
    assert.equal(rows[0].sync_state.cursor, '300');
    const count = async () =>
      (
        await svc.db.query(
          `SELECT count(*)::int AS n FROM contacts WHERE account_id = $1 AND integrations ? 'hubspot'`,
          [a.accountId],
        )
      ).rows[0].n;
    assert.equal(await count(), 300);
    hub.holdIf = undefined;
    const before = hub.requests.length;
    await expireLeases(svc);
    await drainRounds(svc);
    const pages = hub.requests.slice(before).filter((r) => r.path.startsWith('/crm/v3/objects/contacts?'));
    assert.deepEqual(
      pages.map((p) => /after=(\d+)/.exec(p.path)?.[1]),
      ['300', '400'],
    );
    assert.equal(await count(), 500);
    const events = await svc.db.query(
      `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'contact-created'`,
      [a.accountId],
    );
    assert.equal(events.rows[0].n, 500);
    await call(svc.api, 'DELETE', `/v1/accounts/${a.accountId}/integrations/${id}`, { auth: a.auth });
  });

  it('mid-write: a note the CRM took before the kill is not written again', async () => {
    pd.upsert({ id: 41, first: 'Kim', phone: '+12015550141', at: HOUR_AGO });
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/integrations`, {
      auth: a.auth,
      json: { type: 'pipedrive', apiToken: 'pd-good', writeOptOuts: false },
    });
    assert.equal(res.statusCode, 201, res.body);
    await drainRounds(svc);
    const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from: '+12015550141', to: ours, text: 'Logged once please' },
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    // The CRM keeps the note and never answers: the worker dies with the outcome unknown.
    pd.holdWrites = true;
    const first = worker();
    await within(pd.heldWrite(), 60_000, 'the worker writing the note');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    pd.holdWrites = false;
    const logged = () => pd.notes.filter((n) => n.content.includes('Logged once please'));
    assert.equal(logged().length, 1);
    const { rows } = await svc.db.query(`SELECT status FROM integration_pushes WHERE kind = 'message'`);
    assert.deepEqual(
      rows.map((r) => r.status),
      ['sending'],
    );
    await expireLeases(svc);
    await drainRounds(svc);
    assert.equal(logged().length, 1, 'the note is not written twice');
    const after = await svc.db.query(`SELECT status FROM integration_pushes WHERE kind = 'message'`);
    assert.deepEqual(
      after.rows.map((r) => r.status),
      ['done'],
    );
    // The worker asked Pipedrive for the person's notes before deciding.
    assert.ok(pd.requests.some((r) => r.path.startsWith('/v1/notes?person_id=41')));
  });
});
