import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { twilioSignature } from '../../src/providers/twilio/webhooks.ts';
import { newId } from '../../src/util/ids.ts';
import { addProviderNumber, body, call } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';
import { serviceWithAccount } from '../support/suite.ts';

const TWILIO_TOKEN = 'test-twilio-auth-token';

describe('inbound messages', () => {
  const s = serviceWithAccount({ twilio: { ...loadConfig().twilio, authToken: TWILIO_TOKEN } });
  let ours: string;
  let seq = 10;
  /** A fresh valid sender number (+1 201 555 01NN) per use. */
  const sender = () => `+120155501${String(seq++).padStart(2, '0')}`;

  before(async () => {
    ours = await ourNumber(s.a.accountId);
    // The tests read the contact-created and conversation-started events of inbound texts, written
    // only where heard.
    await listenToEvents(s.svc.db, s.a.accountId, ['contact-created', 'conversation-started']);
  });

  async function ourNumber(accountId: string): Promise<string> {
    const { rows } = await s.svc.db.query(
      `SELECT number FROM phone_numbers WHERE account_id = $1 AND status = 'active' ORDER BY created_at LIMIT 1`,
      [accountId],
    );
    return rows[0].number;
  }
  const inbound = (json: unknown) =>
    call(s.svc.externals, 'POST', '/v1/providers/simulator/messages', { json });
  async function events(accountId: string, type: string) {
    const { rows } = await s.svc.db.query(
      'SELECT sparrow_event_payload(e) AS data FROM events e WHERE account_id = $1 AND type = $2 ORDER BY created_at, id',
      [accountId, type],
    );
    return rows.map((r) => r.data);
  }
  async function contactByMobile(accountId: string, mobile: string) {
    const { rows } = await s.svc.db.query(
      'SELECT * FROM contacts WHERE account_id = $1 AND mobile_number = $2',
      [accountId, mobile],
    );
    return rows[0];
  }
  async function replies(accountId: string, contactId: string) {
    const { rows } = await s.svc.db.query(
      'SELECT * FROM messages WHERE account_id = $1 AND contact_id = $2 AND outgoing ORDER BY created_at, id',
      [accountId, contactId],
    );
    return rows;
  }
  async function say(from: string, text: string, to = ours) {
    const res = await inbound({ from, to, text });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  }

  describe('POST /v1/providers/simulator/messages', () => {
    it('creates the contact, the conversation and the message, with their events', async () => {
      const from = sender();
      const data = await say(from, 'Hello there');
      assert.ok(data.messageId);
      assert.ok(data.conversationId);
      assert.equal(data.keyword, undefined);

      const contact = await contactByMobile(s.a.accountId, from);
      assert.ok(contact, 'contact created');
      const { rows } = await s.svc.db.query('SELECT * FROM messages WHERE account_id = $1 AND id = $2', [
        s.a.accountId,
        data.messageId,
      ]);
      assert.equal(rows[0].outgoing, false);
      assert.equal(rows[0].status, 'received');
      assert.equal(rows[0].read, false);
      assert.equal(rows[0].body, 'Hello there');
      assert.equal(rows[0].from_number, from);
      assert.equal(rows[0].to_number, ours);
      assert.equal(rows[0].contact_id, contact.id);
      assert.equal(rows[0].conversation_id, data.conversationId);

      const conv = body(
        await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}/conversations/${data.conversationId}`, {
          auth: s.a.auth,
        }),
      ).data;
      assert.equal(conv.contact.id, contact.id);
      assert.equal(conv.phoneNumber.number, ours);
      assert.equal(conv.phoneNumber.active, true);
      assert.equal(typeof conv.phoneNumber.id, 'string');
      assert.deepEqual(conv.unread, [data.messageId]);
      assert.equal(conv.lastMessage.id, data.messageId);
      assert.equal(conv.closed, false);

      assert.ok((await events(s.a.accountId, 'contact-created')).some((e) => e.id === contact.id));
      const started = (await events(s.a.accountId, 'conversation-started')).filter(
        (e) => e.conversation.id === data.conversationId,
      );
      assert.equal(started.length, 1);
      assert.equal(started[0].reopened, false);
      const received = (await events(s.a.accountId, 'message-received')).filter(
        (e) => e.message.id === data.messageId,
      );
      assert.equal(received.length, 1);
      assert.equal(received[0].contact.id, contact.id);
      assert.equal(received[0].conversation.id, data.conversationId);
      assert.equal(received[0].conversation.started, true);
    });

    it('threads a second message into the same conversation without starting it again', async () => {
      const from = sender();
      const first = await say(from, 'one');
      const second = await say(from, 'two');
      assert.equal(second.conversationId, first.conversationId);
      const started = (await events(s.a.accountId, 'conversation-started')).filter(
        (e) => e.conversation.id === first.conversationId,
      );
      assert.equal(started.length, 1);
      const conv = body(
        await call(s.svc.api, 'GET', `/v1/accounts/${s.a.accountId}/conversations/${first.conversationId}`, {
          auth: s.a.auth,
        }),
      ).data;
      assert.deepEqual(conv.unread, [first.messageId, second.messageId]);
      assert.equal(conv.lastMessage.id, second.messageId);
    });

    it('stores a carrier retry with the same message id only once', async () => {
      const from = sender();
      const id = `SIM-${newId()}`;
      const first = await say(from, 'retry me', ours);
      const r1 = body(await inbound({ from, to: ours, text: 'dup', id })).data;
      const r2 = body(await inbound({ from, to: ours, text: 'dup', id })).data;
      assert.equal(r2.messageId, r1.messageId);
      assert.equal(r2.conversationId, first.conversationId);
      const { rows } = await s.svc.db.query(
        'SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND provider_message_id = $2',
        [s.a.accountId, id],
      );
      assert.equal(rows[0].n, 1);
      const received = (await events(s.a.accountId, 'message-received')).filter(
        (e) => e.message.id === r1.messageId,
      );
      assert.equal(received.length, 1);
    });

    it('answers 404 PROV-002 when the destination is not one of our numbers', async () => {
      const res = await inbound({ from: sender(), to: '+12015559999', text: 'hi' });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'PROV-002');
    });

    it('rejects an invalid sender with 400 CONT-001', async () => {
      const res = await inbound({ from: '12', to: ours, text: 'hi' });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'CONT-001');
    });

    it('rejects a request without text with 400', async () => {
      const res = await inbound({ from: sender(), to: ours });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).success, false);
      assert.equal(body(res).error.code, 'VAL-001');
    });

    it("routes a message to the number's own account only", async () => {
      const b = await s.svc.newAccount();
      const theirs = await ourNumber(b.accountId);
      const from = sender();
      await say(from, 'for b', theirs);
      assert.ok(await contactByMobile(b.accountId, from));
      assert.equal(await contactByMobile(s.a.accountId, from), undefined);
    });
  });

  describe('opt-out keywords', () => {
    async function withListMembership(accountId: string, contactId: string) {
      const listId = newId();
      await s.svc.db.query('INSERT INTO lists (account_id, id, name) VALUES ($1, $2, $3)', [
        accountId,
        listId,
        'News',
      ]);
      await s.svc.db.query(
        'INSERT INTO list_members (account_id, list_id, contact_id, opt_in_at) VALUES ($1, $2, $3, now())',
        [accountId, listId, contactId],
      );
      return listId;
    }
    async function memberships(accountId: string, contactId: string) {
      const { rows } = await s.svc.db.query(
        'SELECT * FROM list_members WHERE account_id = $1 AND contact_id = $2',
        [accountId, contactId],
      );
      return rows;
    }

    for (const text of ['STOP', 'stop', ' Stop ', 'Stop.', 'UNSUBSCRIBE', 'quit']) {
      it(`opts the contact out on ${JSON.stringify(text)}: one confirmation, contact-opt-out, lists opted out`, async () => {
        const from = sender();
        await say(from, 'hi');
        const before = await contactByMobile(s.a.accountId, from);
        await s.svc.db.query('UPDATE contacts SET opt_in_at = now() WHERE account_id = $1 AND id = $2', [
          s.a.accountId,
          before.id,
        ]);
        await withListMembership(s.a.accountId, before.id);

        const data = await say(from, text);
        assert.equal(data.keyword, 'opt-out');
        const contact = await contactByMobile(s.a.accountId, from);
        assert.ok(contact.opted_out_at, 'opted out');
        assert.equal(contact.opt_in_at, null, 'optIn cleared');
        for (const m of await memberships(s.a.accountId, contact.id))
          assert.ok(m.opt_out_at, 'membership opted out');

        const out = await replies(s.a.accountId, contact.id);
        assert.equal(out.length, 1);
        assert.equal(out[0].system, true);
        assert.equal(out[0].status, 'queued');
        assert.equal(Number(out[0].price), 0);
        assert.equal(out[0].to_number, from);
        assert.equal(out[0].from_number, ours);
        assert.equal(out[0].conversation_id, data.conversationId);
        assert.match(out[0].body, /unsubscribed/i);

        const ev = (await events(s.a.accountId, 'contact-opt-out')).filter(
          (e) => e.contact.id === contact.id,
        );
        assert.equal(ev.length, 1);
        assert.ok(ev[0].contact.optOut);
        assert.equal(ev[0].contact.optIn, undefined);
        assert.ok(ev[0].contact.lists.every((l: { optOut: string | null }) => l.optOut));
        assert.equal(ev[0].messageId, data.messageId);
      });
    }

    it('does nothing more on a repeated STOP: no second confirmation, no second event', async () => {
      const from = sender();
      await say(from, 'STOP');
      const contact = await contactByMobile(s.a.accountId, from);
      const data = await say(from, 'stop');
      assert.equal(data.keyword, 'opt-out');
      assert.equal((await replies(s.a.accountId, contact.id)).length, 1);
      assert.equal(
        (await events(s.a.accountId, 'contact-opt-out')).filter((e) => e.contact.id === contact.id).length,
        1,
      );
      const again = await contactByMobile(s.a.accountId, from);
      assert.equal(again.opted_out_at.getTime(), contact.opted_out_at.getTime());
    });

    it('queues one confirmation when several STOPs from a new sender arrive at once', async () => {
      const from = sender();
      const all = await Promise.all(
        ['STOP', 'stop', 'Stop', 'QUIT'].map((text) => inbound({ from, to: ours, text })),
      );
      for (const r of all) assert.equal(r.statusCode, 200, r.body);
      assert.equal(new Set(all.map((r) => body(r).data.conversationId)).size, 1, 'one conversation');
      const contact = await contactByMobile(s.a.accountId, from);
      assert.ok(contact.opted_out_at);
      assert.equal((await replies(s.a.accountId, contact.id)).length, 1);
      assert.equal(
        (await events(s.a.accountId, 'contact-opt-out')).filter((e) => e.contact.id === contact.id).length,
        1,
      );
      assert.equal(
        (await events(s.a.accountId, 'contact-created')).filter((e) => e.id === contact.id).length,
        1,
      );
    });

    it('treats "STOP PLEASE" as an ordinary message', async () => {
      const from = sender();
      const data = await say(from, 'STOP PLEASE');
      assert.equal(data.keyword, undefined);
      const contact = await contactByMobile(s.a.accountId, from);
      assert.equal(contact.opted_out_at, null);
      assert.equal((await replies(s.a.accountId, contact.id)).length, 0);
      assert.equal(
        (await events(s.a.accountId, 'contact-opt-out')).filter((e) => e.contact.id === contact.id).length,
        0,
      );
    });

    it('refuses a later message to an opted-out contact with CONT-010, uncharged', async () => {
      const from = sender();
      await say(from, 'STOP');
      const contact = await contactByMobile(s.a.accountId, from);
      const balance = async () =>
        Number(
          (await s.svc.db.query('SELECT balance FROM accounts WHERE id = $1', [s.a.accountId])).rows[0]
            .balance,
        );
      const before = await balance();
      const res = await call(s.svc.api, 'POST', `/v1/accounts/${s.a.accountId}/messages`, {
        auth: s.a.auth,
        json: { contacts: [{ id: contact.id }], template: 'Big sale today' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.queued, 0);
      assert.equal(body(res).data.failed, 1);
      const sent = (await replies(s.a.accountId, contact.id)).filter((m: { system: boolean }) => !m.system);
      assert.equal(sent.length, 1);
      assert.equal(sent[0].status, 'failed');
      assert.equal(sent[0].error.code, 'CONT-010');
      assert.equal(Number(sent[0].price), 0);
      assert.equal(await balance(), before);
    });

    for (const word of ['START', 'yes', 'Unstop']) {
      it(`opts an opted-out contact back in on ${word}, with a confirmation and contact-opt-in`, async () => {
        const from = sender();
        await say(from, 'hi');
        const c = await contactByMobile(s.a.accountId, from);
        await withListMembership(s.a.accountId, c.id);
        await say(from, 'STOP');
        const data = await say(from, word);
        assert.equal(data.keyword, 'opt-in');
        const contact = await contactByMobile(s.a.accountId, from);
        assert.equal(contact.opted_out_at, null);
        assert.ok(contact.opt_in_at);
        for (const m of await memberships(s.a.accountId, contact.id)) assert.equal(m.opt_out_at, null);
        const out = await replies(s.a.accountId, contact.id);
        assert.equal(out.length, 2);
        assert.match(out[1].body, /subscribed again/i);
        assert.equal(out[1].system, true);
        const ev = (await events(s.a.accountId, 'contact-opt-in')).filter((e) => e.contact.id === contact.id);
        assert.equal(ev.length, 1);
        assert.equal(ev[0].contact.optOut, undefined);
        assert.ok(ev[0].contact.optIn);
      });
    }

    it('treats YES from a contact who never opted out as an ordinary message', async () => {
      const from = sender();
      const data = await say(from, 'YES');
      assert.equal(data.keyword, 'opt-in');
      const contact = await contactByMobile(s.a.accountId, from);
      assert.equal((await replies(s.a.accountId, contact.id)).length, 0);
      assert.equal(
        (await events(s.a.accountId, 'contact-opt-in')).filter((e) => e.contact.id === contact.id).length,
        0,
      );
    });

    it("answers HELP with the account's help text", async () => {
      const b = await s.svc.newAccount();
      const theirs = await ourNumber(b.accountId);
      await s.svc.db.query('UPDATE accounts SET help_text = $2 WHERE id = $1', [
        b.accountId,
        'Acme: call 555-0100. Reply STOP to opt out.',
      ]);
      const from = sender();
      const data = await say(from, 'help', theirs);
      assert.equal(data.keyword, 'help');
      const contact = await contactByMobile(b.accountId, from);
      const out = await replies(b.accountId, contact.id);
      assert.equal(out.length, 1);
      assert.equal(out[0].body, 'Acme: call 555-0100. Reply STOP to opt out.');
      assert.equal(out[0].system, true);
      assert.equal(Number(out[0].price), 0);
    });

    it('answers INFO with a default naming the account when it has no help text', async () => {
      const from = sender();
      await say(from, 'INFO');
      const contact = await contactByMobile(s.a.accountId, from);
      const out = await replies(s.a.accountId, contact.id);
      const { rows } = await s.svc.db.query('SELECT name FROM accounts WHERE id = $1', [s.a.accountId]);
      assert.equal(out.length, 1);
      assert.ok(out[0].body.includes(rows[0].name), out[0].body);
      assert.match(out[0].body, /Reply STOP to unsubscribe/);
    });

    it('sends no HELP answer to an opted-out contact', async () => {
      const from = sender();
      await say(from, 'STOP');
      const contact = await contactByMobile(s.a.accountId, from);
      await say(from, 'HELP');
      assert.equal((await replies(s.a.accountId, contact.id)).length, 1, 'only the STOP confirmation');
    });
  });

  describe('POST /v1/providers/twilio/inbound', () => {
    const path = '/v1/providers/twilio/inbound';
    // Twilio's callbacks are accepted only for a number Twilio serves.
    let twilioNumber: string;
    before(async () => {
      twilioNumber = await addProviderNumber(s.svc.db, s.a.accountId, 'twilio');
    });
    const post = (params: Record<string, string>, signature?: string) =>
      call(s.svc.externals, 'POST', path, {
        payload: new URLSearchParams(params).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(signature === undefined ? {} : { 'x-twilio-signature': signature }),
        },
      });
    const params = (from: string) => ({
      MessageSid: `SM${newId().replaceAll('-', '')}`,
      AccountSid: 'AC123',
      From: from,
      To: twilioNumber,
      Body: 'Hi from Twilio',
      NumMedia: '0',
    });

    it('accepts a correctly signed message and answers empty TwiML', async () => {
      const from = sender();
      const p = params(from);
      const res = await post(p, twilioSignature(TWILIO_TOKEN, `${s.svc.config.externalsUrl}${path}`, p));
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/xml/);
      assert.match(res.body, /<Response\/>/);
      const { rows } = await s.svc.db.query(
        'SELECT * FROM messages WHERE account_id = $1 AND provider = $2 AND provider_message_id = $3',
        [s.a.accountId, 'twilio', p.MessageSid],
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0].body, 'Hi from Twilio');
      assert.equal(rows[0].from_number, from);
    });

    it('stores a retried MessageSid once', async () => {
      const p = params(sender());
      const sig = twilioSignature(TWILIO_TOKEN, `${s.svc.config.externalsUrl}${path}`, p);
      assert.equal((await post(p, sig)).statusCode, 200);
      assert.equal((await post(p, sig)).statusCode, 200);
      const { rows } = await s.svc.db.query(
        'SELECT count(*)::int AS n FROM messages WHERE provider_message_id = $1',
        [p.MessageSid],
      );
      assert.equal(rows[0].n, 1);
    });

    it('refuses a bad signature with 403 PROV-001 and stores nothing', async () => {
      const p = params(sender());
      const res = await post(p, twilioSignature('another-token', `${s.svc.config.externalsUrl}${path}`, p));
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'PROV-001');
      const { rows } = await s.svc.db.query(
        'SELECT count(*)::int AS n FROM messages WHERE provider_message_id = $1',
        [p.MessageSid],
      );
      assert.equal(rows[0].n, 0);
    });

    it('refuses a tampered body and a missing signature with 403', async () => {
      const p = params(sender());
      const sig = twilioSignature(TWILIO_TOKEN, `${s.svc.config.externalsUrl}${path}`, p);
      assert.equal((await post({ ...p, Body: 'changed' }, sig)).statusCode, 403);
      assert.equal((await post(p)).statusCode, 403);
    });
  });

  describe('POST /v1/providers/twilio/status', () => {
    const path = '/v1/providers/twilio/status';
    const post = (params: Record<string, string>, signature: string) =>
      call(s.svc.externals, 'POST', path, {
        payload: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      });

    async function sentViaTwilio(): Promise<{ id: string; sid: string }> {
      const from = sender();
      const { contactId } = await say(from, 'hello').then(async () => ({
        contactId: (await contactByMobile(s.a.accountId, from)).id,
      }));
      const { rows: n } = await s.svc.db.query(
        'SELECT id FROM phone_numbers WHERE account_id = $1 AND number = $2',
        [s.a.accountId, ours],
      );
      const id = newId();
      const sid = `SM${id.replaceAll('-', '')}`;
      await s.svc.db.query(
        `WITH ref AS (INSERT INTO provider_refs (provider, ref, account_id, message_id) VALUES ('twilio', $7, $1, $2))
         INSERT INTO messages (account_id, id, contact_id, phone_number_id, from_number, to_number, outgoing, body,
                               status, provider, provider_ref, sent_at)
         VALUES ($1, $2, $3, $4, $5, $6, true, 'hi', 'sent', 'twilio', $7, now())`,
        [s.a.accountId, id, contactId, n[0].id, ours, from, sid],
      );
      return { id, sid };
    }

    it('applies a correctly signed receipt and answers 204', async () => {
      const m = await sentViaTwilio();
      const p = { MessageSid: m.sid, MessageStatus: 'delivered', AccountSid: 'AC123' };
      const res = await post(p, twilioSignature(TWILIO_TOKEN, `${s.svc.config.externalsUrl}${path}`, p));
      assert.equal(res.statusCode, 204, res.body);
      const { rows } = await s.svc.db.query('SELECT status FROM messages WHERE account_id = $1 AND id = $2', [
        s.a.accountId,
        m.id,
      ]);
      assert.equal(rows[0].status, 'delivered');
    });

    it('refuses a bad signature with 403 PROV-001 and changes nothing', async () => {
      const m = await sentViaTwilio();
      const p = { MessageSid: m.sid, MessageStatus: 'delivered', AccountSid: 'AC123' };
      const res = await post(p, 'bm90IGEgc2lnbmF0dXJl');
      assert.equal(res.statusCode, 403);
      assert.equal(body(res).error.code, 'PROV-001');
      const { rows } = await s.svc.db.query('SELECT status FROM messages WHERE account_id = $1 AND id = $2', [
        s.a.accountId,
        m.id,
      ]);
      assert.equal(rows[0].status, 'sent');
    });
  });
});
