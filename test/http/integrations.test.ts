/**
 * CRM integrations (issue 29), black-box: the connections API against local servers speaking
 * HubSpot's, Pipedrive's and ActiveCampaign's documented APIs (test/support/crm-servers.ts), and the
 * sync the worker runs (its rounds run here one by one).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkApiUrl } from '../../src/domain/integrations/check-credentials.ts';
import { hubspotSignatureV3 } from '../../src/domain/integrations/receive-hubspot-webhook.ts';
import { runIntegrationsRound } from '../../src/domain/integrations/run-integrations.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import {
  type ActiveCampaignServer,
  activecampaignServer,
  type HubspotServer,
  hubspotServer,
  type PipedriveServer,
  pipedriveServer,
} from '../support/crm-servers.ts';
import { listenToEvents } from '../support/listen.ts';

const HOUR_AGO = Date.now() - 3_600_000;

/** Runs worker rounds until none finds a due connection (bounded). */
async function drainRounds(svc: TestService, max = 50): Promise<number> {
  let n = 0;
  while (n < max && (await runIntegrationsRound(svc.ctx))) n++;
  assert.ok(n < max, 'the integrations worker kept finding work');
  return n;
}

describe('integrations API and CRM → Sparrow sync', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let hub: HubspotServer;
  let pd: PipedriveServer;
  let ac: ActiveCampaignServer;
  const path = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/integrations${rest}`;
  const connect = (acc: TestAccount, json: unknown) =>
    call(svc.api, 'POST', path(acc), { auth: acc.auth, json });
  const contactOf = async (acc: TestAccount, mobile: string) => {
    const { rows } = await svc.db.query(
      'SELECT id FROM contacts WHERE account_id = $1 AND mobile_number = $2',
      [acc.accountId, mobile],
    );
    if (!rows[0]) return undefined;
    const res = await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/contacts/${rows[0].id}`, {
      auth: acc.auth,
    });
    return body(res).data;
  };

  before(async () => {
    [hub, pd, ac] = await Promise.all([hubspotServer(), pipedriveServer(), activecampaignServer()]);
    svc = await startTestService({
      secretsKey: randomBytes(32),
      crm: { hubspotBase: hub.url, pipedriveBase: pd.url },
    });
    a = await svc.newAccount();
    b = await svc.newAccount();
    hub.tokens.add('pat-na1-good');
    // A test reads the contact-created events of a sync, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created']);
    pd.tokens.add('pd-good');
    ac.tokens.add('ac-good');
  });
  after(async () => {
    await svc.close();
    await Promise.all([hub.close(), pd.close(), ac.close()]);
  });

  describe('connections', () => {
    it('refuses a credential the CRM refuses: 422 INT-002 naming the answer', async () => {
      const res = await connect(a, { type: 'hubspot', accessToken: 'pat-na1-wrong' });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(body(res).error.code, 'INT-002');
      assert.match(body(res).error.description, /HubSpot refused the credential .*401/);
      const pdRes = await connect(a, { type: 'pipedrive', apiToken: 'nope' });
      assert.equal(pdRes.statusCode, 422);
      const acRes = await connect(a, { type: 'activecampaign', apiUrl: ac.url, apiKey: 'nope' });
      assert.equal(acRes.statusCode, 422);
      assert.match(body(acRes).error.description, /ActiveCampaign refused the credential .*403/);
    });

    it('refuses a body missing the CRM’s credential fields, or carrying another CRM’s: 400', async () => {
      for (const json of [
        { type: 'hubspot' },
        { type: 'activecampaign', apiKey: 'x' },
        { type: 'pipedrive', apiToken: 'pd-good', accessToken: 'x' },
        { type: 'salesforce', accessToken: 'x' },
      ]) {
        const res = await connect(a, json);
        assert.equal(res.statusCode, 400, `${JSON.stringify(json)}: ${res.body}`);
        assert.equal(body(res).success, false);
      }
    });

    it('refuses a private ActiveCampaign address unless WEBHOOKS_ALLOW_PRIVATE (the webhooks SSRF guard)', async () => {
      await assert.rejects(checkApiUrl('http://127.0.0.1:9', false), { code: 'INT-005' });
      await assert.rejects(checkApiUrl('http://169.254.169.254/latest', false), { code: 'INT-005' });
      await assert.rejects(checkApiUrl('http://user:pw@example.com', false), { code: 'VAL-001' });
      assert.equal(await checkApiUrl('http://127.0.0.1:9/', true), 'http://127.0.0.1:9');
    });

    it('connects HubSpot: 201 with the Integration; the token is sealed at rest and never answered', async () => {
      const res = await connect(a, { type: 'hubspot', accessToken: 'pat-na1-good' });
      assert.equal(res.statusCode, 201, res.body);
      const { data } = body(res);
      assert.equal(data.type, 'hubspot');
      assert.equal(data.status, 'active');
      assert.deepEqual(data.syncs, {
        contacts: true,
        optOuts: true,
        messages: true,
        intervalMinutes: 15,
        lists: [],
      });
      assert.equal(res.body.includes('pat-na1-good'), false);
      const { rows } = await svc.db.query('SELECT credentials FROM integrations WHERE id = $1', [data.id]);
      assert.match(rows[0].credentials, /^enc:v1:/);
      assert.equal(rows[0].credentials.includes('pat-na1-good'), false);
      // One live connection per CRM.
      const again = await connect(a, { type: 'hubspot', accessToken: 'pat-na1-good' });
      assert.equal(again.statusCode, 409);
      assert.equal(body(again).error.code, 'INT-004');
    });

    it('keeps tenants apart and asks for the integrations scopes', async () => {
      const list = body(await call(svc.api, 'GET', path(a), { auth: a.auth })).data;
      const id = list[0].id;
      assert.equal((await call(svc.api, 'GET', path(b, `/${id}`), { auth: b.auth })).statusCode, 404);
      // b's token names a's account: refused before anything is read.
      assert.equal((await call(svc.api, 'GET', path(a, `/${id}`), { auth: b.auth })).statusCode, 403);
      assert.equal((await call(svc.api, 'POST', path(b, `/${id}/sync`), { auth: b.auth })).statusCode, 404);
      assert.equal((await call(svc.api, 'DELETE', path(b, `/${id}`), { auth: b.auth })).statusCode, 404);
      assert.equal((await call(svc.api, 'GET', path(a, '/not-an-id'), { auth: a.auth })).statusCode, 404);
      const reader = await svc.newAccount({ scopes: ['integrations:read'] });
      const denied = await call(svc.api, 'POST', path(reader), {
        auth: reader.auth,
        json: { type: 'pipedrive', apiToken: 'pd-good' },
      });
      assert.equal(denied.statusCode, 403);
      const none = await svc.newAccount({ scopes: ['contacts:read'] });
      assert.equal((await call(svc.api, 'GET', path(none), { auth: none.auth })).statusCode, 403);
    });
  });

  describe('HubSpot sync', () => {
    let integrationId: string;
    before(async () => {
      // 230 people: three pages of 100; ids past 2^31.
      for (let i = 0; i < 230; i++) {
        const id = String(51_000_000_000 + i);
        const phone = i % 10 === 9 ? null : `+1201555${String(1000 + i).padStart(4, '0')}`;
        // mobilephone wins over phone; some have only phone.
        const props: Record<string, string | null> =
          i % 2
            ? { firstname: `F${i}`, lastname: `L${i}`, email: `p${i}@example.com`, mobilephone: phone }
            : { firstname: `F${i}`, phone };
        hub.upsert(id, props, HOUR_AGO + i);
      }
      // Three records with one phone (mobilephone wins over phone): the lowest id wins.
      hub.upsert('51000000500', { firstname: 'Higher', mobilephone: '+12015551001' }, HOUR_AGO + 500);
      hub.upsert(
        '51000000000',
        { firstname: 'F0', phone: '+12015551000', mobilephone: '+12015551001' },
        HOUR_AGO + 501,
      );
      integrationId = body(await call(svc.api, 'GET', path(a), { auth: a.auth })).data[0].id;
    });

    it('imports people with a phone (full sync, 100-record pages), with hubspot.id on the contact', async () => {
      await drainRounds(svc);
      const got = body(await call(svc.api, 'GET', path(a, `/${integrationId}`), { auth: a.auth })).data;
      assert.ok(got.lastSynced, JSON.stringify(got));
      assert.equal(got.counts.read, 231);
      assert.equal(got.counts.withoutPhone, 23);
      // 51000000001 (same page) and 51000000500 (a later page) lost +12015551001 to 51000000000.
      assert.equal(got.counts.duplicatePhone, 2);
      assert.equal(got.counts.created, 206);
      assert.equal(got.lastError, undefined);
      const pages = hub.requests.filter((r) => r.path.startsWith('/crm/v3/objects/contacts?limit=100'));
      assert.equal(pages.length, 3);
      assert.match(pages[0].path, /properties=firstname%2Clastname%2Cemail%2Cmobilephone%2Cphone/);
      assert.match(pages[1].path, /after=100/);
      const c = await contactOf(a, '+12015551003');
      assert.deepEqual(c.hubspot, { id: 51_000_000_003 });
      assert.equal(c.firstName, 'F3');
      assert.equal(c.email, 'p3@example.com');
      // The lower id kept the shared phone.
      assert.deepEqual((await contactOf(a, '+12015551001')).hubspot, { id: 51_000_000_000 });
      // contact-created events carry the field too.
      const { rows } = await svc.db.query(
        `SELECT data FROM events WHERE account_id = $1 AND type = 'contact-created' AND data->'hubspot' IS NOT NULL`,
        [a.accountId],
      );
      assert.equal(rows.length, 206);
      // Another tenant sees none of it.
      assert.equal(await contactOf(b, '+12015551003'), undefined);
    });

    it('syncs changes incrementally (search on hs_lastmodifieddate) and emits contact-updated', async () => {
      hub.upsert('51000000003', { firstname: 'Renamed' });
      const before = hub.requests.length;
      const res = await call(svc.api, 'POST', path(a, `/${integrationId}/sync`), { auth: a.auth });
      assert.equal(res.statusCode, 202);
      await drainRounds(svc);
      const searches = hub.requests.slice(before).filter((r) => r.path === '/crm/v3/objects/contacts/search');
      assert.equal(searches.length, 1);
      const filter = (searches[0].body as any).filterGroups[0].filters[0];
      assert.equal(filter.propertyName, 'hs_lastmodifieddate');
      assert.equal(filter.operator, 'GTE');
      assert.equal(
        hub.requests.slice(before).filter((r) => r.path.startsWith('/crm/v3/objects/contacts?')).length,
        0,
      );
      assert.equal((await contactOf(a, '+12015551003')).firstName, 'Renamed');
      const got = body(await call(svc.api, 'GET', path(a, `/${integrationId}`), { auth: a.auth })).data;
      assert.equal(got.counts.updated, 1);
    });

    it('waits out a 429 (Retry-After) and resumes where it stopped', async () => {
      hub.upsert('51000000005', { firstname: 'AfterLimit' });
      await call(svc.api, 'POST', path(a, `/${integrationId}/sync`), { auth: a.auth });
      hub.rateLimitNext(1, 1);
      await drainRounds(svc);
      let got = body(await call(svc.api, 'GET', path(a, `/${integrationId}`), { auth: a.auth })).data;
      assert.equal(got.lastError.code, 'INT-003');
      assert.match(got.lastError.description, /429/);
      assert.equal(got.status, 'active');
      const { rows } = await svc.db.query(
        'SELECT sync_due_at > now() AS later FROM integrations WHERE id = $1',
        [integrationId],
      );
      assert.equal(rows[0].later, true);
      // Retry-After passed (made so without waiting).
      await svc.db.query('UPDATE integrations SET sync_due_at = now() WHERE id = $1', [integrationId]);
      await drainRounds(svc);
      got = body(await call(svc.api, 'GET', path(a, `/${integrationId}`), { auth: a.auth })).data;
      assert.equal(got.lastError, undefined);
      assert.equal((await contactOf(a, '+12015551005')).firstName, 'AfterLimit');
    });

    it('syncs a HubSpot list into a Sparrow list whose source names it', async () => {
      hub.lists.set('77', ['51000000002', '51000000003', '51000000009']);
      const list = body(
        await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/lists`, {
          auth: a.auth,
          json: { name: 'From HubSpot' },
        }),
      ).data;
      const listId = Array.isArray(list) ? list[0].id : list.id;
      // Another account's list cannot be named.
      const theirs = body(
        await call(svc.api, 'POST', `/v1/accounts/${b.accountId}/lists`, {
          auth: b.auth,
          json: { name: 'Theirs' },
        }),
      ).data;
      const refused = await call(svc.api, 'PUT', path(a, `/${integrationId}`), {
        auth: a.auth,
        json: { lists: [{ crmListId: '77', listId: Array.isArray(theirs) ? theirs[0].id : theirs.id }] },
      });
      assert.equal(refused.statusCode, 404, refused.body);
      assert.equal(body(refused).error.code, 'LIST-001');
      const put = await call(svc.api, 'PUT', path(a, `/${integrationId}`), {
        auth: a.auth,
        json: { lists: [{ crmListId: '77', listId }] },
      });
      assert.equal(put.statusCode, 200, put.body);
      await drainRounds(svc);
      const got = body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/lists/${listId}`, { auth: a.auth }),
      ).data;
      assert.equal(got.source.id, '77');
      assert.equal(got.source.integration, 'hubspot');
      assert.match(got.source.lastSynced, /^\d{4}-/);
      // 51000000009 has no phone: two members.
      assert.equal(got.size, 2);
    });

    it('marks a revoked token: status error, INT-002, and no more syncing until a new one', async () => {
      hub.tokens.delete('pat-na1-good');
      await call(svc.api, 'POST', path(a, `/${integrationId}/sync`), { auth: a.auth });
      await drainRounds(svc);
      const got = body(await call(svc.api, 'GET', path(a, `/${integrationId}`), { auth: a.auth })).data;
      assert.equal(got.status, 'error');
      assert.equal(got.lastError.code, 'INT-002');
      const before = hub.requests.length;
      await drainRounds(svc);
      assert.equal(hub.requests.length, before);
      hub.tokens.add('pat-na1-new');
      const put = await call(svc.api, 'PUT', path(a, `/${integrationId}`), {
        auth: a.auth,
        json: { accessToken: 'pat-na1-new' },
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(body(put).data.status, 'active');
      await drainRounds(svc);
      assert.equal(
        body(await call(svc.api, 'GET', path(a, `/${integrationId}`), { auth: a.auth })).data.lastError,
        undefined,
      );
    });
  });

  describe('HubSpot webhooks (X-HubSpot-Signature-v3)', () => {
    it('a signed call makes the sync due now; a bad, stale or foreign one is 401 INT-006', async () => {
      const id = body(await call(svc.api, 'GET', path(a), { auth: a.auth })).data[0].id;
      const put = await call(svc.api, 'PUT', path(a, `/${id}`), {
        auth: a.auth,
        json: { webhookSecret: 'hs-client-secret' },
      });
      assert.equal(put.statusCode, 200, put.body);
      const due = async () =>
        (await svc.db.query('SELECT sync_due_at <= now() AS due FROM integrations WHERE id = $1', [id]))
          .rows[0].due;
      const later = () =>
        svc.db.query(`UPDATE integrations SET sync_due_at = now() + interval '1 hour' WHERE id = $1`, [id]);
      const hook = `/v1/providers/hubspot/${id}/webhook`;
      const payload = JSON.stringify([
        { objectId: 51000000003, subscriptionType: 'contact.propertyChange', portalId: 1 },
      ]);
      const send = (headers: Record<string, string>, url = hook) =>
        svc.externals.inject({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': 'application/json', ...headers },
        });
      const signed = (secret: string, ts = String(Date.now()), url = hook) => ({
        'x-hubspot-request-timestamp': ts,
        'x-hubspot-signature-v3': hubspotSignatureV3(
          secret,
          'POST',
          `${svc.config.externalsUrl}${url}`,
          payload,
          ts,
        ),
      });
      await later();
      for (const headers of [
        signed('wrong-secret'),
        signed('hs-client-secret', String(Date.now() - 10 * 60_000)),
        { 'x-hubspot-request-timestamp': String(Date.now()) },
      ]) {
        const res = await send(headers);
        assert.equal(res.statusCode, 401, res.body);
        assert.equal(body(res).error.code, 'INT-006');
      }
      // Another connection's URL with this signature, and a connection without a secret.
      const otherUrl = `/v1/providers/hubspot/${crypto.randomUUID()}/webhook`;
      assert.equal((await send(signed('hs-client-secret', undefined, otherUrl), otherUrl)).statusCode, 401);
      assert.equal(await due(), false);
      const ok = await send(signed('hs-client-secret'));
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(await due(), true);
      await drainRounds(svc);
    });
  });

  describe('Pipedrive and ActiveCampaign sync', () => {
    it('imports Pipedrive persons (start/more_items_in_collection; a person without a phone is counted)', async () => {
      for (let i = 1; i <= 120; i++)
        pd.upsert({
          id: i,
          first: `P${i}`,
          last: 'Drive',
          phone: i % 12 === 0 ? undefined : `+1201555${2000 + i}`,
          email: `pd${i}@example.com`,
          at: HOUR_AGO + i * 1000,
        });
      const res = await connect(b, { type: 'pipedrive', apiToken: 'pd-good' });
      assert.equal(res.statusCode, 201, res.body);
      await drainRounds(svc);
      const got = body(await call(svc.api, 'GET', path(b, `/${body(res).data.id}`), { auth: b.auth })).data;
      assert.equal(got.counts.read, 120);
      assert.equal(got.counts.withoutPhone, 10);
      assert.equal(got.counts.created, 110);
      const c = await contactOf(b, '+12015552001');
      assert.deepEqual(c.pipedrive, { id: 1 });
      assert.equal(c.email, 'pd1@example.com');
      assert.equal(pd.requests.filter((r) => r.path.startsWith('/v1/persons?')).length, 2);
      pd.upsert({ id: 1, first: 'Changed', last: 'Drive', phone: '+12015552001' });
      await call(svc.api, 'POST', path(b, `/${body(res).data.id}/sync`), { auth: b.auth });
      await drainRounds(svc);
      assert.equal((await contactOf(b, '+12015552001')).firstName, 'Changed');
      assert.ok(pd.requests.some((r) => r.path.startsWith('/v1/recents?since_timestamp=')));
      // A CRM account without the changed-since endpoint is read in full, with the same outcome.
      pd.missingIf = (r) => r.path.startsWith('/v1/recents');
      pd.upsert({ id: 2, first: 'Full', last: 'Read', phone: '+12015552002' });
      await call(svc.api, 'POST', path(b, `/${body(res).data.id}/sync`), { auth: b.auth });
      await drainRounds(svc);
      pd.missingIf = undefined;
      assert.equal((await contactOf(b, '+12015552002')).firstName, 'Full');
      const after = body(await call(svc.api, 'GET', path(b, `/${body(res).data.id}`), { auth: b.auth })).data;
      assert.equal(after.lastError, undefined);
      assert.equal(after.counts.read, 120);
    });

    it('imports ActiveCampaign contacts (offset/meta.total as a string, string ids, dates with an offset)', async () => {
      for (let i = 1; i <= 130; i++)
        ac.upsert({
          id: i,
          first: `A${i}`,
          phone: i === 7 ? '' : `(201) 555-${3000 + i}`,
          at: HOUR_AGO + i * 1000,
        });
      const res = await connect(b, { type: 'activecampaign', apiUrl: `${ac.url}/`, apiKey: 'ac-good' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(body(res).data.apiUrl, ac.url);
      await drainRounds(svc);
      const got = body(await call(svc.api, 'GET', path(b, `/${body(res).data.id}`), { auth: b.auth })).data;
      assert.equal(got.counts.read, 130);
      assert.equal(got.counts.withoutPhone, 1);
      const c = await contactOf(b, '+12015553001');
      assert.deepEqual(c.activecampaign, { id: 1 });
      ac.upsert({ id: 2, first: 'Updated', phone: '(201) 555-3002' });
      await call(svc.api, 'POST', path(b, `/${body(res).data.id}/sync`), { auth: b.auth });
      await drainRounds(svc);
      assert.equal((await contactOf(b, '+12015553002')).firstName, 'Updated');
      assert.ok(ac.requests.some((r) => r.path.includes('filters%5Bupdated_after%5D=')));
    });

    it('disconnects: the ids stay on contacts unless clearIds', async () => {
      const list = body(await call(svc.api, 'GET', path(b), { auth: b.auth })).data;
      const acId = list.find((i: any) => i.type === 'activecampaign').id;
      const pdId = list.find((i: any) => i.type === 'pipedrive').id;
      assert.equal((await call(svc.api, 'DELETE', path(b, `/${pdId}`), { auth: b.auth })).statusCode, 204);
      assert.deepEqual((await contactOf(b, '+12015552001')).pipedrive, { id: 1 });
      assert.equal(
        (await call(svc.api, 'DELETE', path(b, `/${acId}?clearIds=true`), { auth: b.auth })).statusCode,
        204,
      );
      assert.equal((await contactOf(b, '+12015553001')).activecampaign, undefined);
      assert.equal((await call(svc.api, 'GET', path(b, `/${acId}`), { auth: b.auth })).statusCode, 404);
      const { rows } = await svc.db.query('SELECT credentials FROM integrations WHERE id = $1', [acId]);
      assert.equal(rows[0].credentials, '');
    });
  });
});
