import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';

const US_RATE = 0.0079;
const GB_RATE = 0.04;
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

describe('messages', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let seq = 0;
  const nextMobile = () => `+1201${String(5_000_000 + seq++).padStart(7, '0')}`;
  const url = (acc: TestAccount, rest = '') => `/v1/accounts/${acc.accountId}/messages${rest}`;
  const send = (acc: TestAccount, json: object) => call(svc.api, 'POST', url(acc), { auth: acc.auth, json });
  const newContact = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/contacts`, {
      auth: acc.auth,
      json: { mobile: nextMobile(), ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0] as { id: string; mobile: { number: string } };
  };
  const balance = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/balance`, { auth: acc.auth })).data
      .balance as number;
  const numbers = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, { auth: acc.auth }))
      .data as {
      id: string;
      number: string;
    }[];
  const sent = async (acc: TestAccount, json: object) => {
    const res = await send(acc, json);
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  };

  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount({ balance: 100 });
    b = await svc.newAccount();
    // The tests read a's contact-created and conversation-started events, written only where heard.
    await listenToEvents(svc.db, a.accountId, ['contact-created', 'conversation-started']);
  });
  after(() => svc.close());

  describe('POST /v1/accounts/:accountId/messages', () => {
    it('queues one message per contact id, charges segments × rate and answers the job', async () => {
      const [c1, c2] = [await newContact(a, { firstName: 'Ann' }), await newContact(a, { firstName: 'Bob' })];
      const before = await balance(a);
      const data = await sent(a, { contacts: [{ id: c1.id }, { id: c2.id }], template: 'Hello there' });
      assert.equal(data.queued, 2);
      assert.equal(data.failed, 0);
      assert.equal(data.requested, 2);
      assert.equal(data.valid, 2);
      assert.deepEqual(data.invalid, []);
      assert.match(data.jobId, /^[0-9a-f-]{36}$/);
      assert.equal(data.estimatedPrice, round4(2 * US_RATE));
      assert.equal(data.messages.length, 2);
      const [ours] = await numbers(a);
      for (const m of data.messages) {
        assert.equal(m.status, 'queued');
        assert.equal(m.message, 'Hello there');
        assert.equal(m.template, 'Hello there');
        assert.equal(m.outgoing, true);
        assert.equal(m.encoding, 'GSM-7');
        assert.equal(m.segments, 1);
        assert.equal(m.price, US_RATE);
        assert.equal(m.phoneNumber, ours.number);
        assert.equal(m.jobId, data.jobId);
        assert.ok(!('error' in m), 'no error: left out, not null');
        assert.ok(m.conversation.id);
        assert.match(m.created.at, /^\d{4}-\d\d-\d\dT/);
      }
      assert.deepEqual(
        data.messages.map((m: { contact: { id: string } }) => m.contact.id).sort(),
        [c1.id, c2.id].sort(),
      );
      assert.equal(round4(before - (await balance(a))), round4(2 * US_RATE));
    });

    it('creates contacts on the fly for new mobile numbers and renders their fields', async () => {
      const number = nextMobile();
      const data = await sent(a, {
        contacts: [{ mobile: { number, country: 'US' }, firstName: 'Nia', lastName: 'Nova' }],
        template: 'Hi {{{firstName}}} {{{contact.lastName}}}',
      });
      assert.equal(data.queued, 1);
      assert.equal(data.messages[0].message, 'Hi Nia Nova');
      assert.equal(data.messages[0].contact.mobile.number, number);
      assert.equal(data.messages[0].contact.mobile.country, 'US');
      assert.equal(data.messages[0].contact.mobile.valid, true);
      const res = await call(
        svc.api,
        'GET',
        `/v1/accounts/${a.accountId}/contacts/${data.messages[0].contact.id}`,
        { auth: a.auth },
      );
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).data.firstName, 'Nia');
    });

    it('creates only the new mobiles (set-based, one contact-created each) and leaves existing contacts as they are', async () => {
      const existing = nextMobile();
      const made = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
        auth: a.auth,
        json: { mobile: existing, firstName: 'Old' },
      });
      assert.equal(made.statusCode, 201);
      const fresh = [nextMobile(), nextMobile()];
      const data = await sent(a, {
        contacts: [
          { mobile: { number: existing }, firstName: 'Ignored' },
          { mobile: { number: fresh[0] }, firstName: 'New' },
          { mobile: { number: fresh[0] }, firstName: 'Twice' },
          { mobile: { number: fresh[1] } },
        ],
        template: 'Hi {{{firstName}}}',
      });
      assert.equal(data.queued, 3, 'one message per distinct contact');
      const texts = data.messages.map((m: any) => m.message).sort();
      assert.deepEqual(texts, ['Hi ', 'Hi New', 'Hi Old']);
      const created = await svc.db.query(
        `SELECT data->'mobile'->>'number' AS number FROM events WHERE account_id = $1 AND type = 'contact-created'
           AND data->'mobile'->>'number' = ANY($2::text[])`,
        [a.accountId, [existing, ...fresh]],
      );
      assert.deepEqual(created.rows.map((r) => r.number).sort(), [existing, ...fresh].sort());
    });

    it('reads a national number in its country and prices it by that country', async () => {
      const data = await sent(a, {
        contacts: [{ mobile: { number: '07400 123456', country: 'GB' } }],
        template: 'Hello',
      });
      assert.equal(data.messages[0].contact.mobile.number, '+447400123456');
      assert.equal(data.estimatedPrice, GB_RATE);
    });

    it('renders merge fields per contact: fields, attributes, missing values empty, no HTML escaping', async () => {
      const c = await newContact(a, {
        firstName: '<Zoe & Co>',
        email: 'z@example.com',
        attributes: { plan: 'gold', visits: 7 },
      });
      const data = await sent(a, {
        contacts: [{ id: c.id }],
        template:
          '{{{firstName}}}/{{{ email }}}/{{{plan}}}/{{{contact.attributes.visits}}}/{{{nickname}}}/{{{mobile}}}',
      });
      assert.equal(data.messages[0].message, `<Zoe & Co>/z@example.com/gold/7//${c.mobile.number}`);
      assert.equal(
        data.messages[0].template,
        '{{{firstName}}}/{{{ email }}}/{{{plan}}}/{{{contact.attributes.visits}}}/{{{nickname}}}/{{{mobile}}}',
      );
    });

    it('counts segments and encoding per message and prices every segment', async () => {
      const c = await newContact(a);
      const data = await sent(a, { contacts: [{ id: c.id }], template: `😀${'a'.repeat(69)}` });
      assert.equal(data.messages[0].encoding, 'UCS-2');
      assert.equal(data.messages[0].segments, 2);
      assert.equal(data.estimatedPrice, round4(2 * US_RATE));
      const long = await sent(a, { contacts: [{ id: c.id }], template: `{${'a'.repeat(159)}` });
      assert.equal(long.messages[0].encoding, 'GSM-7');
      assert.equal(long.messages[0].segments, 2);
    });

    it("counts each recipient's segments over the text with its own merged values", async () => {
      const cases = [
        { code: '[]~|', encoding: 'GSM-7', segments: 1 }, // 150 + 8 septets
        { code: '[]~|^', encoding: 'GSM-7', segments: 1 }, // 150 + 10 = 160
        { code: '[]~|^{', encoding: 'GSM-7', segments: 2 }, // 150 + 12 = 162
        { code: '😀', encoding: 'UCS-2', segments: 3 }, // 150 + 2 UTF-16 units = 152
        { code: 'ë', encoding: 'UCS-2', segments: 3 }, // not in the GSM-7 alphabet
      ];
      const contacts: { id: string }[] = [];
      for (const c of cases) contacts.push(await newContact(a, { attributes: { code: c.code } }));
      const data = await sent(a, {
        contacts: contacts.map((c) => ({ id: c.id })),
        template: `${'a'.repeat(150)}{{{code}}}`,
      });
      for (const [i, c] of cases.entries()) {
        const m = data.messages.find((x: { contact: { id: string } }) => x.contact.id === contacts[i].id);
        assert.equal(m.message, `${'a'.repeat(150)}${c.code}`);
        assert.deepEqual(
          { encoding: m.encoding, segments: m.segments },
          { encoding: c.encoding, segments: c.segments },
          c.code,
        );
      }
    });

    it('sends to the contacts matching filters: every tag and every attribute condition', async () => {
      const tag = `t${seq++}`;
      const vipGold = await newContact(a, {
        tags: [
          { tag, visible: true },
          { tag: `${tag}x`, visible: true },
        ],
        attributes: { level: 5 },
      });
      await newContact(a, { tags: [{ tag, visible: true }], attributes: { level: 2 } });
      await newContact(a, { attributes: { level: 9 } });
      const byTag = await sent(a, { filters: { tags: [tag] }, template: 'tagged' });
      assert.equal(byTag.queued, 2);
      const both = await sent(a, { filters: { tags: [{ tag }, `${tag}x`] }, template: 'both tags' });
      assert.deepEqual(
        both.messages.map((m: { contact: { id: string } }) => m.contact.id),
        [vipGold.id],
      );
      const byAttr = await sent(a, {
        filters: { tags: [tag], attributes: [{ attribute: 'level', comparator: '>=', value: ['3'] }] },
        template: 'level 3+',
      });
      assert.deepEqual(
        byAttr.messages.map((m: { contact: { id: string } }) => m.contact.id),
        [vipGold.id],
      );
    });

    it('sends to the members of a list', async () => {
      const list = body(
        await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/lists`, {
          auth: a.auth,
          json: { name: `L${seq++}` },
        }),
      ).data;
      const [m1, m2] = [await newContact(a), await newContact(a)];
      await newContact(a);
      const add = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/lists/${list.id}/contacts`, {
        auth: a.auth,
        json: { contactIds: [m1.id, m2.id] },
      });
      assert.ok(add.statusCode < 300, add.body);
      const data = await sent(a, { listId: list.id, template: 'to the list' });
      assert.deepEqual(
        data.messages.map((m: { contact: { id: string } }) => m.contact.id).sort(),
        [m1.id, m2.id].sort(),
      );
      const viaFilter = await sent(a, { filters: { listId: list.id }, template: 'to the list again' });
      assert.equal(viaFilter.queued, 2);
    });

    it('takes filters.list {id} as filters.listId, narrows it with q, and refuses two different lists', async () => {
      const newList = async () =>
        body(
          await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/lists`, {
            auth: a.auth,
            json: { name: `L${seq++}` },
          }),
        ).data as { id: string };
      const [list, other] = [await newList(), await newList()];
      const ann = await newContact(a, { firstName: 'Annabel' });
      const bob = await newContact(a, { firstName: 'Bob' });
      await newContact(a, { firstName: 'Annie' });
      const add = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/lists/${list.id}/contacts`, {
        auth: a.auth,
        json: { contactIds: [ann.id, bob.id] },
      });
      assert.ok(add.statusCode < 300, add.body);
      const ids = (data: { messages: { contact: { id: string } }[] }) =>
        data.messages.map((m) => m.contact.id).sort();
      assert.deepEqual(
        ids(await sent(a, { filters: { list: { id: list.id } }, template: 'to the list' })),
        [ann.id, bob.id].sort(),
      );
      assert.deepEqual(
        ids(await sent(a, { filters: { list: { id: list.id }, q: 'ann' }, template: 'to Ann' })),
        [ann.id],
      );
      const same = await sent(a, { filters: { list: { id: list.id }, listId: list.id }, template: 'same' });
      assert.equal(same.queued, 2);
      for (const json of [
        { filters: { list: { id: list.id }, listId: other.id } },
        { filters: { list: { id: list.id } }, listId: other.id },
      ]) {
        const res = await send(a, { ...json, template: 'two lists' });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(body(res).error.code, 'VAL-001');
        assert.match(body(res).error.message, /filters\.list\.id/);
      }
      const bad = await send(a, { filters: { list: { id: 'x' } }, template: 'bad' });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.match(body(bad).error.message, /`filters\.list\.id` is not a list id/);
    });

    it('sends one message to a contact named both by id and by a filter', async () => {
      const tag = `d${seq++}`;
      const c = await newContact(a, { tags: [{ tag, visible: true }] });
      const data = await sent(a, {
        contacts: [{ id: c.id }, { id: c.id }],
        filters: { tags: [tag] },
        template: 'once',
      });
      assert.equal(data.queued, 1);
    });

    it('sends into conversations: to their contact, from their number', async () => {
      const c = await newContact(a);
      const first = await sent(a, { contacts: [{ id: c.id }], template: 'first' });
      const conversationId = first.messages[0].conversation.id;
      const data = await sent(a, { conversations: [conversationId], template: 'reply' });
      assert.equal(data.queued, 1);
      assert.equal(data.messages[0].contact.id, c.id);
      assert.equal(data.messages[0].conversation.id, conversationId);
      assert.equal(data.messages[0].phoneNumber, first.messages[0].phoneNumber);
    });

    it('rejects an unknown conversation with 400 CONV-001 and queues nothing', async () => {
      const c = await newContact(a);
      for (const id of ['01900000-0000-7000-8000-000000000000', 'nope']) {
        const res = await send(a, { contacts: [{ id: c.id }], conversations: [id], template: 'x' });
        assert.equal(res.statusCode, 400);
        assert.equal(body(res).error.code, 'CONV-001');
      }
      const list = body(await call(svc.api, 'GET', url(a, `?contactId=${c.id}`), { auth: a.auth }));
      assert.equal(list.pagination.totalCount, 0);
    });

    it('records invalid numbers (CONT-001) and opted-out or blocked contacts (CONT-010) as failed and uncharged', async () => {
      const ok = await newContact(a);
      const blocked = await newContact(a, { blocked: true });
      const stopper = await newContact(a);
      const [ours] = await numbers(a);
      const stop = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: stopper.mobile.number, to: ours.number, text: 'STOP' },
      });
      assert.equal(stop.statusCode, 200, stop.body);
      const before = await balance(a);
      const data = await sent(a, {
        contacts: [{ id: ok.id }, { id: blocked.id }, { id: stopper.id }, { mobile: { number: '12345' } }],
        template: 'Offer',
      });
      assert.equal(data.queued, 1);
      assert.equal(data.failed, 3);
      assert.equal(data.estimatedPrice, US_RATE);
      assert.equal(round4(before - (await balance(a))), US_RATE);
      const byContact = new Map(
        data.messages.map((m: { contact: { id: string } | null }) => [m.contact?.id ?? 'none', m]),
      );
      for (const [id, code] of [
        [blocked.id, 'CONT-010'],
        [stopper.id, 'CONT-010'],
        ['none', 'CONT-001'],
      ]) {
        const m = byContact.get(id) as { status: string; error: { code: string }; price: number };
        assert.equal(m.status, 'failed', id);
        assert.equal(m.error.code, code);
        assert.equal(m.price, 0);
      }
      assert.equal((byContact.get(ok.id) as { status: string }).status, 'queued');
    });

    it('answers 402 ACCT-002 when the balance cannot cover the send, and queues nothing', async () => {
      const poor = await svc.newAccount({ balance: 0.01 });
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push({ id: (await newContact(poor)).id });
      const res = await send(poor, { contacts: ids, template: 'too expensive' });
      assert.equal(res.statusCode, 402);
      assert.equal(body(res).success, false);
      assert.equal(body(res).error.code, 'ACCT-002');
      assert.equal(await balance(poor), 0.01);
      const list = body(await call(svc.api, 'GET', url(poor), { auth: poor.auth }));
      assert.equal(list.pagination.totalCount, 0);
      const jobs = await svc.db.query('SELECT count(*)::int AS n FROM send_jobs WHERE account_id = $1', [
        poor.accountId,
      ]);
      assert.equal(jobs.rows[0].n, 0);
      const one = await send(poor, { contacts: ids.slice(0, 1), template: 'affordable' });
      assert.equal(one.statusCode, 200, one.body);
    });

    it('keeps a contact on the same number of its group (sticky sender) and spreads new contacts over the pool', async () => {
      const acc = await svc.newAccount({ balance: 100 });
      const avail = body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/availablephonenumbers?limit=5`, {
          auth: acc.auth,
        }),
      ).data;
      const take = await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/phonenumbers`, {
        auth: acc.auth,
        json: { number: avail[0].number },
      });
      assert.equal(take.statusCode, 201, take.body);
      const pool = await numbers(acc);
      assert.equal(pool.length, 2);
      const contacts: { id: string }[] = [];
      for (let i = 0; i < 24; i++) contacts.push({ id: (await newContact(acc)).id });
      const first = await sent(acc, { contacts, template: 'one' });
      const from1 = new Map(
        first.messages.map((m: { contact: { id: string }; phoneNumber: string }) => [
          m.contact.id,
          m.phoneNumber,
        ]),
      );
      assert.equal(new Set(from1.values()).size, 2, 'both numbers are used');
      const second = await sent(acc, { contacts, template: 'two' });
      for (const m of second.messages) assert.equal(m.phoneNumber, from1.get(m.contact.id));
      // A conversation started on the other number wins over the hash.
      const c = contacts[0].id;
      const other = pool.find((n) => n.number !== from1.get(c)) as { id: string; number: string };
      const contact = body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/contacts/${c}`, { auth: acc.auth }),
      ).data;
      await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from: contact.mobile.number, to: other.number, text: 'hello from the handset' },
      });
      const third = await sent(acc, { contacts: [{ id: c }], template: 'three' });
      assert.equal(third.messages[0].phoneNumber, other.number);
    });

    it('writes conversation-started for new conversations, in the send transaction', async () => {
      const c = await newContact(a);
      const data = await sent(a, { contacts: [{ id: c.id }], template: 'new thread' });
      const { rows } = await svc.db.query(
        // As webhook delivery reads it (a bulk send stores a reference: migration 0150).
        `SELECT sparrow_event_payload(e) AS data FROM events e
         WHERE account_id = $1 AND type = 'conversation-started' AND data->'conversation'->>'id' = $2`,
        [a.accountId, data.messages[0].conversation.id],
      );
      assert.equal(rows.length, 1);
      assert.deepEqual(rows[0].data, {
        conversation: {
          id: data.messages[0].conversation.id,
          contact: { id: c.id },
          phoneNumber: rows[0].data.conversation.phoneNumber,
          closed: false,
        },
        reopened: false,
      });
      // The conversation's last message reads like the message itself (source text and author from its job).
      const conv = body(
        await call(
          svc.api,
          'GET',
          `/v1/accounts/${a.accountId}/conversations/${data.messages[0].conversation.id}`,
          {
            auth: a.auth,
          },
        ),
      ).data;
      // Our number is the same phone-number object in the payload and in the API's Conversation.
      assert.equal(rows[0].data.conversation.phoneNumber.number, data.messages[0].phoneNumber);
      assert.deepEqual(rows[0].data.conversation.phoneNumber, conv.phoneNumber);
      assert.equal(conv.lastMessage.id, data.messages[0].id);
      assert.deepEqual(conv.lastMessage.contact.mobile, data.messages[0].contact.mobile);
      assert.equal(conv.lastMessage.template, 'new thread');
      assert.deepEqual(conv.lastMessage.created, data.messages[0].created);
      assert.equal(conv.lastMessage.status, data.messages[0].status);
      await sent(a, { contacts: [{ id: c.id }], template: 'same thread' });
      const again = await svc.db.query(
        `SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'conversation-started' AND data->'conversation'->>'id' = $2`,
        [a.accountId, data.messages[0].conversation.id],
      );
      assert.equal(again.rows[0].n, 1);
    });

    it('answers the first 100 messages and lists the rest by jobId', async () => {
      const tag = `many${seq++}`;
      const rows = Array.from({ length: 120 }, (_, i) => [
        `+1201${String(7_000_000 + seq * 1000 + i).padStart(7, '0')}`,
      ]);
      const csv = `mobile,tags\n${rows.map(([m]) => `${m},${tag}`).join('\n')}\n`;
      const up = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
        auth: a.auth,
        headers: { 'content-type': 'text/csv' },
        payload: csv,
      });
      assert.equal(up.statusCode, 201, up.body);
      const tagged = await svc.db.query(
        `SELECT count(*)::int AS n FROM contacts WHERE account_id = $1 AND tags @> $2::jsonb`,
        [a.accountId, JSON.stringify([{ tag }])],
      );
      assert.equal(tagged.rows[0].n, 120, 'the CSV upload tagged every contact');
      const data = await sent(a, { filters: { tags: [tag] }, template: 'bulk' });
      assert.equal(data.queued, 120);
      assert.equal(data.messages.length, 100);
      const rest = body(
        await call(svc.api, 'GET', url(a, `?jobId=${data.jobId}&offset=100&limit=100`), { auth: a.auth }),
      );
      assert.equal(rest.pagination.totalCount, 120);
      assert.equal(rest.data.length, 20);
    });

    it('rejects an empty template with 400 MSG-003', async () => {
      const c = await newContact(a);
      for (const template of ['', '   ', undefined]) {
        const res = await send(a, { contacts: [{ id: c.id }], template });
        assert.equal(res.statusCode, 400);
        assert.equal(body(res).error.code, 'MSG-003');
      }
    });

    it('rejects a send without recipients with 400 MSG-002', async () => {
      for (const json of [{ template: 'x' }, { template: 'x', contacts: [], conversations: [] }]) {
        const res = await send(a, json);
        assert.equal(res.statusCode, 400);
        assert.equal(body(res).error.code, 'MSG-002');
      }
      const none = await send(a, { template: 'x', filters: { tags: ['no-such-tag-anywhere'] } });
      assert.equal(none.statusCode, 400);
      assert.equal(body(none).error.code, 'MSG-002');
    });

    it('rejects a malformed body with 400 in the error envelope', async () => {
      for (const json of [
        { template: 'x', type: 'FAX', contacts: [{ id: 'x' }] },
        { template: 5 },
        { template: 'x', contacts: 'all' },
        {
          template: 'x',
          contacts: [{ mobile: { number: '+12015550100' } }],
          conversationStrategy: 'x'.repeat(101),
        },
      ]) {
        const res = await send(a, json);
        assert.equal(res.statusCode, 400, JSON.stringify(json));
        assert.equal(body(res).success, false);
      }
    });

    it('accepts conversationStrategy and threads into the contact’s conversation with the number', async () => {
      const first = await sent(a, { contacts: [{ mobile: { number: '+12015550177' } }], template: 'one' });
      const again = await sent(a, {
        contacts: [{ mobile: { number: '+12015550177' } }],
        template: 'two',
        conversationStrategy: 'new',
      });
      assert.equal(again.messages[0].conversation.id, first.messages[0].conversation.id);
    });

    it('rejects an unknown group with 404 GRP-001', async () => {
      const c = await newContact(a);
      const res = await send(a, {
        contacts: [{ id: c.id }],
        template: 'x',
        phoneNumberFilter: { group: { id: '01900000-0000-7000-8000-000000000000' } },
      });
      assert.equal(res.statusCode, 404);
      assert.equal(body(res).error.code, 'GRP-001');
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'POST', url(a), { json: { template: 'x', filters: {} } });
      assert.equal(res.statusCode, 401);
      assert.equal(body(res).error.code, 'AUTH-001');
    });

    it("rejects another account's path with 403 and another account's contact with 404 CONT-002", async () => {
      const theirs = await newContact(b);
      const res = await call(svc.api, 'POST', url(b), {
        auth: a.auth,
        json: { contacts: [{ id: theirs.id }], template: 'x' },
      });
      assert.equal(res.statusCode, 403);
      const cross = await send(a, { contacts: [{ id: theirs.id }], template: 'x' });
      assert.equal(cross.statusCode, 404);
      assert.equal(body(cross).error.code, 'CONT-002');
    });
  });

  describe('GET /v1/accounts/:accountId/messages', () => {
    it('lists messages newest first with totalCount, filtered by contact, job, status and date', async () => {
      const c = await newContact(a);
      const one = await sent(a, { contacts: [{ id: c.id }], template: 'first' });
      const two = await sent(a, { contacts: [{ id: c.id }], template: 'second' });
      const res = await call(svc.api, 'GET', url(a, `?contactId=${c.id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      const list = body(res);
      assert.equal(list.pagination.totalCount, 2);
      assert.deepEqual(
        list.data.map((m: { message: string }) => m.message),
        ['second', 'first'],
      );
      const byJob = body(await call(svc.api, 'GET', url(a, `?jobId=${one.jobId}`), { auth: a.auth }));
      assert.deepEqual(
        byJob.data.map((m: { id: string }) => m.id),
        [one.messages[0].id],
      );
      const conv = body(
        await call(svc.api, 'GET', url(a, `?conversationId=${two.messages[0].conversation.id}`), {
          auth: a.auth,
        }),
      );
      assert.equal(conv.pagination.totalCount, 2);
      const queued = body(
        await call(svc.api, 'GET', url(a, `?contactId=${c.id}&status=queued`), { auth: a.auth }),
      );
      assert.equal(queued.pagination.totalCount, 2);
      const failed = body(
        await call(svc.api, 'GET', url(a, `?contactId=${c.id}&status=failed`), { auth: a.auth }),
      );
      assert.equal(failed.pagination.totalCount, 0);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const later = body(
        await call(svc.api, 'GET', url(a, `?contactId=${c.id}&from=${encodeURIComponent(future)}`), {
          auth: a.auth,
        }),
      );
      assert.equal(later.pagination.totalCount, 0);
      const earlier = body(
        await call(svc.api, 'GET', url(a, `?contactId=${c.id}&to=${encodeURIComponent(future)}`), {
          auth: a.auth,
        }),
      );
      assert.equal(earlier.pagination.totalCount, 2);
      const page = body(
        await call(svc.api, 'GET', url(a, `?contactId=${c.id}&limit=1&offset=1`), { auth: a.auth }),
      );
      assert.equal(page.data.length, 1);
      assert.equal(page.pagination.hasNext, false);
    });

    it('matches nothing for an id filter that is not an id', async () => {
      const res = await call(svc.api, 'GET', url(a, '?contactId=nope'), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      assert.equal(body(res).pagination.totalCount, 0);
    });

    it('rejects out-of-range paging and bad filters with 400', async () => {
      for (const q of ['?limit=0', '?limit=101', '?offset=-1', '?status=lost', '?from=yesterday']) {
        const res = await call(svc.api, 'GET', url(a, q), { auth: a.auth });
        assert.equal(res.statusCode, 400, q);
        assert.equal(body(res).success, false);
      }
    });

    it("never lists another account's messages", async () => {
      const theirs = await newContact(b);
      await sent(b, { contacts: [{ id: theirs.id }], template: 'private' });
      const res = await call(svc.api, 'GET', url(a, `?contactId=${theirs.id}`), { auth: a.auth });
      assert.equal(body(res).pagination.totalCount, 0);
      const path = await call(svc.api, 'GET', url(b), { auth: a.auth });
      assert.equal(path.statusCode, 403);
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'GET', url(a));
      assert.equal(res.statusCode, 401);
    });
  });

  describe('GET /v1/accounts/:accountId/messages/:messageId', () => {
    it('answers one message in the Message shape', async () => {
      const c = await newContact(a, { firstName: 'Una', lastName: 'One', email: 'una@example.com' });
      const data = await sent(a, { contacts: [{ id: c.id }], template: 'Hi {{{firstName}}}' });
      const res = await call(svc.api, 'GET', url(a, `/${data.messages[0].id}`), { auth: a.auth });
      assert.equal(res.statusCode, 200);
      const m = body(res).data;
      assert.deepEqual(m.contact, {
        id: c.id,
        firstName: 'Una',
        lastName: 'One',
        email: 'una@example.com',
        mobile: c.mobile,
      });
      assert.equal(m.message, 'Hi Una');
      assert.equal(m.template, 'Hi {{{firstName}}}');
      assert.equal(m.status, 'queued');
      assert.equal(m.read, false);
      assert.deepEqual(m.media, []);
      assert.equal(typeof m.updated.at, 'string');
    });

    it("answers 404 MSG-001 for another account's message and for an id that is not one", async () => {
      const theirs = await newContact(b);
      const data = await sent(b, { contacts: [{ id: theirs.id }], template: 'private' });
      for (const id of [data.messages[0].id, 'nope']) {
        const res = await call(svc.api, 'GET', url(a, `/${id}`), { auth: a.auth });
        assert.equal(res.statusCode, 404);
        assert.equal(body(res).error.code, 'MSG-001');
      }
    });

    it('rejects a call without a token with 401', async () => {
      const res = await call(svc.api, 'GET', url(a, '/01900000-0000-7000-8000-000000000000'));
      assert.equal(res.statusCode, 401);
    });
  });
});
