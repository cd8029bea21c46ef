import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
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

  it('delivers all ten event types, none of them with a null', async () => {
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
    const conv = body(
      await call(svc.api, 'GET', api(`/conversations/${m.conversation.id}`), { auth: a.auth }),
    ).data;
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
    ];
    await eventually(async () => wanted.every((t) => got.some((g) => g.type === t)), 30_000);
    for (const g of got) {
      const nulls = nullsIn(g.data);
      assert.deepEqual(nulls, [], `${g.type} carries null:\n  ${nulls.join('\n  ')}\n${g.raw.slice(0, 800)}`);
    }
    const created = got.find((g) => g.type === 'contact-created' && g.data.id === c.id);
    assert.equal(typeof created?.data.mobile, 'object', 'the Contact shape: mobile is an object');
    const failed = got.find((g) => g.type === 'message-status' && g.data.error?.code === 'CONT-001');
    assert.ok(failed, 'the message to an invalid number is announced with its error');
    assert.ok(!('jobId' in failed.data.message) || typeof failed.data.message.jobId === 'string');
  });
});
