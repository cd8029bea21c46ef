// The Contact shape has two builders: presentContact() for the API, events and webhooks, and its
// SQL twin contactJsonSql() for the events a set-based upload writes. They must give one shape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contactJsonSql } from '../../src/db/queries/contacts-merge.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

describe('the Contact shape built in SQL (contactJsonSql)', () => {
  let svc: TestService;
  let a: TestAccount;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    // A send writes contact-created only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created']);
  });
  after(() => svc.close());

  const inSql = async (id: string, opts?: { fresh?: boolean }) => {
    const { rows } = await svc.db.query(
      `SELECT ${contactJsonSql('c', opts)} AS contact FROM contacts c WHERE c.account_id = $1 AND c.id = $2`,
      [a.accountId, id],
    );
    return rows[0].contact;
  };
  const api = async (id: string) => {
    const res = await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/contacts/${id}`, { auth: a.auth });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };

  it('is the API’s contact, for a contact with every field, lists and a CRM integration', async () => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: {
        mobile: '+447400123457',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        attributes: { plan: 'gold', visits: 3, address: { city: 'London' }, none: [] },
        tags: ['vip', { tag: 'internal', visible: false }],
        optIn: true,
        blocked: '2024-05-01T10:00:00Z',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = body(res).data[0].id;
    for (const name of ['First', 'Second']) {
      const list = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/lists`, {
        auth: a.auth,
        json: { name },
      });
      assert.equal(list.statusCode, 201, list.body);
      const added = await call(
        svc.api,
        'POST',
        `/v1/accounts/${a.accountId}/lists/${body(list).data.id}/contacts`,
        {
          auth: a.auth,
          json: { contactIds: [id] },
        },
      );
      assert.equal(added.statusCode, 200, added.body);
    }
    await svc.db.query(
      `UPDATE contacts SET integrations = '{"hubspot": {"id": 42}, "skipped": "not an object"}' WHERE id = $1`,
      [id],
    );
    const shown = await api(id);
    assert.equal(shown.lists.length, 2);
    assert.deepEqual(shown.hubspot, { id: 42 });
    assert.deepEqual(await inSql(id), shown);
  });

  it('is the API’s contact, for a contact with a mobile only (unset fields left out)', async () => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile: '+12015550199' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = body(res).data[0].id;
    const shown = await api(id);
    assert.equal(shown.firstName, undefined);
    assert.deepEqual(await inSql(id), shown);
    // A contact a statement has just inserted (no lists, no integrations yet): the short form.
    assert.deepEqual(await inSql(id, { fresh: true }), shown);
  });

  it('is in the contact-created event of a send to a new mobile, as the API shows the contact', async () => {
    const sent = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth: a.auth,
      json: { contacts: [{ mobile: { number: '+12015550123' } }], template: 'Hello' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const { rows } = await svc.db.query<{ data: { id: string } }>(
      `SELECT data FROM events WHERE account_id = $1 AND type = 'contact-created' AND data->>'id' = (
         SELECT id::text FROM contacts WHERE account_id = $1 AND mobile_number = '+12015550123')`,
      [a.accountId],
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].data, await api(rows[0].data.id));
  });
});
