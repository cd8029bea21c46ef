import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createClient } from '../../src/domain/auth/create-client.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('POST /v1/accounts/:accountId/messages and the contacts:read scope', () => {
  let svc: TestService;
  let a: TestAccount;
  let sendOnly: { authorization: string };
  let contactId: string;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
    const { client } = await createClient(svc.db, a.accountId, { scopes: ['messages:send'] });
    const token = await svc.ctx.tokens.issue(
      { id: client.id, name: client.name, accountId: a.accountId },
      client.scopes,
    );
    sendOnly = { authorization: `Bearer ${token}` };
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com', mobile: '+12025550123' },
    });
    assert.equal(res.statusCode, 201, res.body);
    contactId = body(res).data[0].id;
  });
  after(() => svc.close());

  const send = (auth: { authorization: string }, template: string) =>
    call(svc.api, 'POST', `/v1/accounts/${a.accountId}/messages`, {
      auth,
      json: { contacts: [{ id: contactId }], template },
    });

  it('answers a messages:send-only token the message ids and statuses without the contact details', async () => {
    const res = await send(sendOnly, 'Hi {{{firstName}}} {{{lastName}}} ({{{email}}}, {{{mobile}}})');
    assert.equal(res.statusCode, 200, res.body);
    const data = body(res).data;
    assert.equal(data.queued, 1);
    const [m] = data.messages;
    assert.ok(m.id);
    assert.equal(m.status, 'queued');
    assert.deepEqual(m.contact, { id: contactId });
    assert.equal(m.message, undefined);
    for (const secret of ['Ada', 'Lovelace', 'ada@example.com', '2025550123'])
      assert.ok(!res.body.includes(secret), `the answer carries ${secret}`);
  });

  it('keeps a text without merge fields, which tells nothing about the contact', async () => {
    const res = await send(sendOnly, 'Our store opens at 9.');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(body(res).data.messages[0].message, 'Our store opens at 9.');
    assert.ok(!res.body.includes('2025550123'));
  });

  it('answers a token that may read contacts the details as before', async () => {
    const res = await send(a.auth, 'Hi {{{firstName}}}');
    assert.equal(res.statusCode, 200, res.body);
    const [m] = body(res).data.messages;
    assert.equal(m.contact.firstName, 'Ada');
    assert.equal(m.contact.email, 'ada@example.com');
    assert.ok(JSON.stringify(m.contact).includes('2025550123'));
    assert.equal(m.message, 'Hi Ada');
  });
});
