import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { assertValid, publishedValidator } from './published-schemas.ts';
import { nullsIn } from './shape.ts';

/*
 * Webhook payloads are read by the same strict clients as the answers, and are built by the same
 * presenters: every event type delivered carries no null anywhere (an unset field is left out), and
 * the contact and conversation in them are the shapes the API answers.
 */

interface Delivered {
  type: string;
  data: any;
  raw: string;
}

describe('webhook payloads of every event type leave unset fields out (no null)', () => {
  let svc: TestService;
  let a: TestAccount;
  let receiver: http.Server;
  const got: Delivered[] = [];

  before(async () => {
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const json = JSON.parse(raw);
        got.push({ type: json.type, data: json.data, raw });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/webhooks`, {
      auth: a.auth,
      json: {
        url,
        eventTypes: [
          'message-received',
          'message-status',
          'message-sent',
          'conversation-started',
          'conversation-closed',
          'contact-created',
          'contact-updated',
          'contact-removed',
          'contact-opt-out',
          'contact-opt-in',
          'list-opt-in',
          'list-opt-out',
        ],
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    svc.startWorkers();
  });
  after(async () => {
    await svc.close();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
  });

  it('delivers all twelve event types, none of them with a null', async () => {
    const api = (p: string) => `/v1/accounts/${a.accountId}${p}`;
    // contact-created, contact-updated
    const c = body(
      await call(svc.api, 'POST', api('/contacts'), {
        auth: a.auth,
        json: { firstName: 'Ada', mobile: '+12015550961' },
      }),
    ).data[0];
    await call(svc.api, 'PUT', api(`/contacts/${c.id}`), { auth: a.auth, json: { lastName: 'Lovelace' } });
    // message-sent, message-status (delivered, and a failed one to an invalid number), conversation-started
    const sent = await call(svc.api, 'POST', api('/messages'), {
      auth: a.auth,
      json: { contacts: [{ id: c.id }, { mobile: { number: '+1234' } }], template: 'Hi {{{firstName}}}' },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const m = body(sent).data.messages.find((x: { contact?: { id: string } }) => x.contact?.id === c.id);
    // Sent before the contact texts STOP below (a message still queued then is held back, not sent).
    await eventually(async () => {
      const read = await call(svc.api, 'GET', api(`/messages/${m.id}`), { auth: a.auth });
      return ['sent', 'delivered'].includes(body(read).data.status);
    }, 30_000);
    const conv = body(
      await call(svc.api, 'GET', api(`/conversations/${m.conversation.id}`), { auth: a.auth }),
    ).data;
    // list-opt-out, list-opt-in: the contact is a member of a list when it texts STOP, then START.
    const list = body(
      await call(svc.api, 'POST', api('/lists'), { auth: a.auth, json: { name: 'News' } }),
    ).data;
    const joined = await call(svc.api, 'POST', api(`/lists/${list.id}/contacts`), {
      auth: a.auth,
      json: { contactIds: [c.id] },
    });
    assert.ok(joined.statusCode < 300, joined.body);
    // message-received, contact-opt-out, contact-opt-in (keywords from the contact)
    for (const text of ['hello', 'STOP', 'START']) {
      const inbound = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: '+12015550961', to: conv.phoneNumber.number, text },
      });
      assert.equal(inbound.statusCode, 200, inbound.body);
    }
    // conversation-closed, contact-removed
    await call(svc.api, 'PUT', api(`/conversations/${conv.id}/close`), { auth: a.auth });
    const other = body(
      await call(svc.api, 'POST', api('/contacts'), { auth: a.auth, json: { mobile: '+12015550962' } }),
    ).data[0];
    await call(svc.api, 'DELETE', api(`/contacts/${other.id}`), { auth: a.auth });

    const wanted = [
      'message-received',
      'message-status',
      'message-sent',
      'conversation-started',
      'conversation-closed',
      'contact-created',
      'contact-updated',
      'contact-removed',
      'contact-opt-out',
      'contact-opt-in',
      'list-opt-out',
      'list-opt-in',
    ];
    // Every type, and the particular events read below: deliveries come in any order, the STOP and
    // START confirmations are message-sent too (and replies go ahead of a send in the dispatcher),
    // and each inbound text is a message-received.
    const sentOwn = (g: Delivered) => g.type === 'message-sent' && g.data.messageObject?.id === m.id;
    const receivedHello = (g: Delivered) => g.type === 'message-received' && g.data.message === 'hello';
    const failedInvalid = (g: Delivered) =>
      g.type === 'message-status' && g.data.errorObject?.code === 'CONT-001';
    await eventually(
      async () =>
        wanted.every((t) => got.some((g) => g.type === t)) &&
        [sentOwn, receivedHello, failedInvalid].every((wantedEvent) => got.some(wantedEvent)),
      30_000,
    );
    for (const g of got) {
      const nulls = nullsIn(g.data);
      assert.deepEqual(nulls, [], `${g.type} carries null:\n  ${nulls.join('\n  ')}\n${g.raw.slice(0, 800)}`);
    }
    const created = got.find((g) => g.type === 'contact-created' && g.data.id === c.id);
    assert.equal(typeof created?.data.mobile, 'object', 'the Contact shape: mobile is an object');
    // A message event's data is the published MessageEventPayload: the text in `message`, the error
    // as a string; Sparrow's records beside it in `messageObject` and `errorObject`.
    const schema = publishedValidator();
    for (const g of got.filter((x) => x.type.startsWith('message-'))) {
      assertValid(schema('MessageEventPayload'), g.data, `${g.type} data`);
      assertValid(schema('Event'), JSON.parse(g.raw), `${g.type} body`);
      assert.equal(typeof g.data.messageObject?.id, 'string', `${g.type}: messageObject is the message`);
    }
    const failed = got.find(failedInvalid);
    assert.ok(failed, 'the message to an invalid number is announced with its error');
    assert.equal(failed.data.error, 'Invalid mobile number.');
    assert.equal(failed.data.message, 'Hi {{{firstName}}}', 'the text of the message to an invalid number');
    assert.equal(failed.data.status, 'failed');
    const sentEvent = got.find(sentOwn);
    assert.equal(sentEvent?.data.message, 'Hi Ada', 'the text as sent');
    assert.equal(sentEvent?.data.messageObject.status, 'sent');
    const listOut = got.find((g) => g.type === 'list-opt-out');
    assert.equal(listOut?.data.list.id, list.id);
    assert.equal(listOut?.data.contact.id, c.id);
    assert.match(listOut?.data.optOut, /Z$/);
    const listIn = got.find((g) => g.type === 'list-opt-in');
    assert.equal(listIn?.data.list.id, list.id);
    assert.equal(listIn?.data.optOut, undefined, 'START cleared the membership opt-out');
    const received = got.find(receivedHello);
    assert.ok(received, 'message-received carries the text received');
    assert.equal(received.data.messageObject.message, 'hello');
  });
});
