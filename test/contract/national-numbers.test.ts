import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/*
 * One rule reads a national number (one without `+`) on every path a client gives one: the country
 * given with it, else the account's (its sending number's), else US (messaging/phone.ts,
 * readingCountry). The vendor's SDK sends `{mobile: {number: "302-624-2325"}}` with no country.
 */
describe('a national number is read by one rule on the send path and the contact path', () => {
  let svc: TestService;
  let us: TestAccount;
  let uk: TestAccount;
  const api = (a: TestAccount, p: string) => `/v1/accounts/${a.accountId}${p}`;

  before(async () => {
    svc = await startTestService();
    us = await svc.newAccount({ balance: 100 });
    uk = await svc.newAccount({ balance: 100 });
    // The UK account sends from a GB number: a group of that number alone is its default group.
    const taken = await call(svc.api, 'POST', api(uk, '/phonenumbers'), {
      auth: uk.auth,
      json: { number: '+447700900123' },
    });
    assert.equal(taken.statusCode, 201, taken.body);
    const group = await call(svc.api, 'POST', api(uk, '/groups'), {
      auth: uk.auth,
      json: { name: 'UK', phoneNumbers: [{ id: body(taken).data.id }], isDefault: true },
    });
    assert.equal(group.statusCode, 201, group.body);
  });
  after(() => svc.close());

  it('sends to "302-624-2325" without a country (US account): sent, not CONT-001, to the contact POST …/contacts makes', async () => {
    const sent = await call(svc.api, 'POST', api(us, '/messages'), {
      auth: us.auth,
      json: { contacts: [{ mobile: { number: '302-624-2325' } }], template: 'Hello' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const d = body(sent).data;
    assert.deepEqual(d.invalid, [], JSON.stringify(d.invalid));
    assert.equal(d.valid, 1);
    assert.equal(d.queued, 1);
    assert.equal(d.messages[0].contact.mobile.number, '+13026242325');
    const created = await call(svc.api, 'POST', api(us, '/contacts?mergeStrategy=append'), {
      auth: us.auth,
      json: { mobile: { number: '302-624-2325' } },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(body(created).data[0].id, d.messages[0].contact.id, 'the same contact on both paths');
  });

  it("reads a national number in the sender number's country (GB) on both paths", async () => {
    const created = await call(svc.api, 'POST', api(uk, '/contacts'), {
      auth: uk.auth,
      json: { firstName: 'Ada', mobile: '07400 123456' },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(body(created).data[0].mobile.number, '+447400123456');
    assert.equal(body(created).data[0].mobile.country, 'GB');
    const sent = await call(svc.api, 'POST', api(uk, '/messages'), {
      auth: uk.auth,
      json: { contacts: [{ mobile: { number: '07400 123457' } }], template: 'Hello' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(body(sent).data.messages[0].contact.mobile.number, '+447400123457');
    const csv = await svc.api.inject({
      method: 'POST',
      url: api(uk, '/contacts'),
      headers: { ...uk.auth, 'content-type': 'text/csv' },
      payload: 'firstName,mobile\nBo,07400 123458\n',
    });
    assert.equal(csv.statusCode, 201, csv.body);
    assert.equal(body(csv).data.contacts[0].mobile.number, '+447400123458');
  });

  it('a country given with the number wins over the account’s, and an international number ignores both', async () => {
    const given = await call(svc.api, 'POST', api(uk, '/messages'), {
      auth: uk.auth,
      json: {
        contacts: [
          { mobile: { number: '(201) 555-0143', country: 'US' } },
          { mobile: { number: '+12015550144' } },
        ],
        template: 'Hello',
      },
    });
    assert.equal(given.statusCode, 200, given.body);
    const numbers = body(given).data.messages.map(
      (m: { contact: { mobile: { number: string } } }) => m.contact.mobile.number,
    );
    assert.deepEqual(numbers.sort(), ['+12015550143', '+12015550144']);
    // The same digits the US account reads as +1 302… are a GB number in the UK account.
    const national = await call(svc.api, 'POST', api(uk, '/messages'), {
      auth: uk.auth,
      json: { contacts: [{ mobile: { number: '302-624-2325' } }], template: 'Hi' },
    });
    assert.equal(national.statusCode, 200, national.body);
    assert.equal(body(national).data.messages[0].contact.mobile.number, '+443026242325');
  });
});
