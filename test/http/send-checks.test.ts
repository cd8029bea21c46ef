import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDueCampaigns } from '../../src/domain/campaigns/run-due-campaigns.ts';
import { runDueWorkflows } from '../../src/domain/workflows/run-due-workflows.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('a send does exactly what its sender meant', () => {
  let svc: TestService;
  let seq = 0;
  const nextMobile = () => `+1201${String(6_000_000 + seq++).padStart(7, '0')}`;
  const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}`;
  const send = (acc: TestAccount, json: object) =>
    call(svc.api, 'POST', `${base(acc)}/messages`, { auth: acc.auth, json });
  const newContact = async (acc: TestAccount, json: object = {}) => {
    const res = await call(svc.api, 'POST', `${base(acc)}/contacts`, {
      auth: acc.auth,
      json: { mobile: nextMobile(), ...json },
    });
    assert.equal(res.statusCode, 201, res.body);
    return body(res).data[0] as { id: string };
  };
  const balance = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `${base(acc)}/balance`, { auth: acc.auth })).data.balance as number;
  const messageCount = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `${base(acc)}/messages?limit=1`, { auth: acc.auth })).pagination
      .totalCount as number;
  /** An account with `n` contacts. */
  const accountWith = async (n: number, opts: { balance?: number } = {}) => {
    const acc = await svc.newAccount({ balance: opts.balance ?? 100 });
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push((await newContact(acc, { firstName: `P${i}`, tags: [{ tag: 'vip' }] })).id);
    return { acc, ids };
  };

  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  describe('recipient selectors', () => {
    it('refuses an unknown key inside filters with 400 naming it and the allowed keys, and sends nothing', async () => {
      const { acc } = await accountWith(2);
      const res = await send(acc, { filters: { tag: 'vip' }, template: 'hi' });
      assert.equal(res.statusCode, 400, res.body);
      const err = body(res).error;
      assert.equal(err.code, 'VAL-001');
      assert.match(err.message, /filters\.tag/);
      assert.match(err.message, /tags, attributes, q, listId, list, all/);
      assert.equal(await messageCount(acc), 0);
    });

    it('refuses filters with no condition with 400 MSG-006 saying how to send to everyone', async () => {
      const { acc } = await accountWith(2);
      const res = await send(acc, { filters: {}, template: 'hi' });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(body(res).error.code, 'MSG-006');
      assert.match(body(res).error.message, /"all": true/);
      assert.equal(await messageCount(acc), 0);
    });

    it('sends to every contact with filters.all', async () => {
      const { acc, ids } = await accountWith(3);
      const res = await send(acc, { filters: { all: true }, template: 'hi all' });
      assert.equal(res.statusCode, 200, res.body);
      const data = body(res).data;
      assert.equal(data.queued, 3);
      assert.deepEqual(
        data.messages.map((m: { contact: { id: string } }) => m.contact.id).sort(),
        [...ids].sort(),
      );
    });

    it('refuses filters.all beside a condition with 400', async () => {
      const { acc } = await accountWith(1);
      const res = await send(acc, { filters: { all: true, tags: ['vip'] }, template: 'hi' });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(body(res).error.message, /filters\.all/);
    });

    it('refuses an unknown attribute comparator with 400 listing the allowed ones', async () => {
      const { acc } = await accountWith(1);
      const res = await send(acc, {
        filters: { attributes: [{ attribute: 'age', comparator: '~', value: ['1'] }] },
        template: 'hi',
      });
      assert.equal(res.statusCode, 400, res.body);
      const message = body(res).error.message as string;
      assert.match(message, /filters\.attributes\[0\]\.comparator must be one of: =, !=, <, <=, >, >=/);
      assert.equal(message.match(/constant/g), null);
    });

    it('applies the same selector rule to campaigns: unknown keys and empty filters refused, filters.all stored', async () => {
      const { acc } = await accountWith(1);
      const url = `${base(acc)}/campaigns`;
      const typo = await call(svc.api, 'POST', url, {
        auth: acc.auth,
        json: { name: 'c', filters: { tag: [] } },
      });
      assert.equal(typo.statusCode, 400, typo.body);
      assert.match(body(typo).error.message, /filters\.tag/);
      const empty = await call(svc.api, 'POST', url, { auth: acc.auth, json: { name: 'c', filters: {} } });
      assert.equal(empty.statusCode, 400, empty.body);
      assert.equal(body(empty).error.code, 'MSG-006');
      const extra = await newContact(acc);
      const all = await call(svc.api, 'POST', url, {
        auth: acc.auth,
        json: { name: 'c', filters: { all: true }, template: 'hi', nextExecution: new Date(0).toISOString() },
      });
      assert.equal(all.statusCode, 201, all.body);
      assert.equal(body(all).data.filters.all, true);
      while ((await runDueCampaigns(svc.db, 10, false, svc.ctx.log, svc.ctx.config)) > 0);
      const sent = body(
        await call(svc.api, 'GET', `${base(acc)}/messages?campaignId=${body(all).data.id}`, {
          auth: acc.auth,
        }),
      );
      assert.equal(sent.pagination.totalCount, 2, 'every contact of the account');
      assert.ok(sent.data.some((m: { contact: { id: string } }) => m.contact.id === extra.id));
    });
  });

  describe('the free-text selector filters.q', () => {
    /** An account with named contacts; answers their ids by name. */
    const people = async (specs: Record<string, object>) => {
      const acc = await svc.newAccount({ balance: 100 });
      const id: Record<string, string> = {};
      for (const [name, json] of Object.entries(specs)) id[name] = (await newContact(acc, json)).id;
      return { acc, id };
    };
    const recipients = (res: Parameters<typeof body>[0]) =>
      (body(res).data.messages as { contact: { id: string } }[]).map((m) => m.contact.id).sort();
    const ids = (id: Record<string, string>, ...names: string[]) => names.map((n) => id[n]).sort();

    it('sends only to contacts whose name, e-mail or mobile contain q, case-insensitively', async () => {
      const { acc, id } = await people({
        ann: { firstName: 'Ann', lastName: 'Lee' },
        joanne: { firstName: 'Joanne' },
        upper: { lastName: 'HANNAH' },
        mail: { firstName: 'Bob', email: 'bob@annex.example' },
        other: { firstName: 'Carl', email: 'carl@example.com', tags: [{ tag: 'vip' }] },
      });
      const res = await send(acc, { filters: { q: 'aNn' }, template: 'hi' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.queued, 4);
      assert.deepEqual(recipients(res), ids(id, 'ann', 'joanne', 'upper', 'mail'));
      assert.equal(await messageCount(acc), 4, 'Carl got nothing');
    });

    it('matches a mobile number partially', async () => {
      const { acc, id } = await people({ one: {}, two: {} });
      const mobile = body(await call(svc.api, 'GET', `${base(acc)}/contacts/${id.two}`, { auth: acc.auth }))
        .data.mobile.number as string;
      const res = await send(acc, { filters: { q: mobile.slice(-7) }, template: 'hi' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(recipients(res), [id.two]);
    });

    it('narrows tags and attributes: a contact must match q and every other condition', async () => {
      const { acc, id } = await people({
        annVip: { firstName: 'Ann', tags: [{ tag: 'vip' }] },
        ann: { firstName: 'Anna' },
        bobVip: { firstName: 'Bob', tags: [{ tag: 'vip' }] },
      });
      const res = await send(acc, { filters: { q: 'ann', tags: ['vip'] }, template: 'hi' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(recipients(res), [id.annVip]);
    });

    it('matches %, _ and \\ literally, not as wildcards', async () => {
      const { acc, id } = await people({
        percent: { firstName: 'Deal', lastName: '50%off' },
        underscore: { firstName: 'a_n' },
        backslash: { firstName: 'x\\y' },
        ann: { firstName: 'Ann' },
        plain: { firstName: 'Fifty', lastName: '50off' },
      });
      for (const [q, who] of [
        ['%', 'percent'],
        ['50%', 'percent'],
        ['a_n', 'underscore'],
        ['\\', 'backslash'],
      ] as const) {
        const res = await send(acc, { filters: { q }, template: 'hi' });
        assert.equal(res.statusCode, 200, `${q}: ${res.body}`);
        assert.deepEqual(recipients(res), [id[who]], `q ${JSON.stringify(q)}`);
      }
    });

    it('refuses q beside all with 400, a blank q alone with MSG-006, and a q over 200 characters with 400', async () => {
      const { acc } = await accountWith(1);
      const withAll = await send(acc, { filters: { all: true, q: 'ann' }, template: 'hi' });
      assert.equal(withAll.statusCode, 400, withAll.body);
      assert.match(body(withAll).error.message, /filters\.all/);
      for (const q of ['', '   ']) {
        const blank = await send(acc, { filters: { q }, template: 'hi' });
        assert.equal(blank.statusCode, 400, blank.body);
        assert.equal(body(blank).error.code, 'MSG-006');
      }
      const long = await send(acc, { filters: { q: 'a'.repeat(201) }, template: 'hi' });
      assert.equal(long.statusCode, 400, long.body);
      assert.match(body(long).error.message, /filters\.q/);
      assert.equal(await messageCount(acc), 0);
    });

    it('stores a campaign q, presents it, and a run reaches only the matching contacts', async () => {
      const { acc, id } = await people({
        ann: { firstName: 'Ann' },
        joanne: { firstName: 'Joanne' },
        bob: { firstName: 'Bob' },
      });
      const url = `${base(acc)}/campaigns`;
      const created = await call(svc.api, 'POST', url, {
        auth: acc.auth,
        json: { name: 'c', filters: { q: 'ann' }, template: 'hi' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const campaignId = body(created).data.id as string;
      assert.equal(body(created).data.filters.q, 'ann');
      const read = body(await call(svc.api, 'GET', `${url}/${campaignId}`, { auth: acc.auth })).data;
      assert.equal(read.filters.q, 'ann');
      assert.equal(read.filters.all, false);

      const due = await call(svc.api, 'PUT', `${url}/${campaignId}`, {
        auth: acc.auth,
        json: { nextExecution: new Date(0).toISOString() },
      });
      assert.equal(due.statusCode, 200, due.body);
      while ((await runDueCampaigns(svc.db, 10, false, svc.ctx.log, svc.ctx.config)) > 0);
      const sent = body(
        await call(svc.api, 'GET', `${base(acc)}/messages?campaignId=${campaignId}`, { auth: acc.auth }),
      );
      assert.deepEqual(
        sent.data.map((m: { contact: { id: string } }) => m.contact.id).sort(),
        ids(id, 'ann', 'joanne'),
      );
    });

    it('changes or clears a campaign q on update, and refuses q beside all', async () => {
      const { acc } = await accountWith(1);
      const url = `${base(acc)}/campaigns`;
      const created = body(
        await call(svc.api, 'POST', url, { auth: acc.auth, json: { name: 'c', filters: { q: 'ann' } } }),
      ).data;
      const put = (filters: object) =>
        call(svc.api, 'PUT', `${url}/${created.id}`, { auth: acc.auth, json: { filters } });
      const changed = await put({ q: 'bob' });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(body(changed).data.filters.q, 'bob');
      const cleared = await put({ q: '', tags: [{ tag: 'vip' }] });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(body(cleared).data.filters.q, undefined);
      assert.deepEqual(body(cleared).data.filters.tags, [{ tag: 'vip' }]);
      const both = await put({ q: 'ann', all: true });
      assert.equal(both.statusCode, 400, both.body);
      const everyone = await put({ all: true });
      assert.equal(everyone.statusCode, 200, everyone.body);
      assert.equal(body(everyone).data.filters.q, undefined);
      const onCreate = await call(svc.api, 'POST', url, {
        auth: acc.auth,
        json: { name: 'c', filters: { q: 'ann', all: true } },
      });
      assert.equal(onCreate.statusCode, 400, onCreate.body);
    });
  });

  describe('ids in the body', () => {
    it('answers 400 naming the field for an empty or malformed conversation, contact or list id', async () => {
      const { acc } = await accountWith(1);
      const cases: [object, RegExp, string][] = [
        [{ conversations: [''] }, /conversations\[0\]/, 'CONV-001'],
        [{ conversations: ['nope'] }, /conversations\[0\]/, 'CONV-001'],
        [{ contacts: [{ id: '' }] }, /contacts\[0\]\.id/, 'VAL-001'],
        [{ listId: '' }, /`listId`/, 'VAL-001'],
        [{ filters: { listId: 'x' } }, /filters\.listId/, 'VAL-001'],
      ];
      for (const [json, field, code] of cases) {
        const res = await send(acc, { ...json, template: 'hi' });
        assert.equal(res.statusCode, 400, `${JSON.stringify(json)}: ${res.body}`);
        assert.equal(body(res).error.code, code);
        assert.match(body(res).error.message, field);
      }
    });

    it('answers 200 with every recipient reported invalid when none is a valid number, never 5xx', async () => {
      const { acc } = await accountWith(0);
      const before = await balance(acc);
      const res = await send(acc, {
        contacts: [{ mobile: { number: '+1234567890' } }, { mobile: { number: '12', country: 'GB' } }],
        template: 'hi',
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = body(res).data;
      assert.equal(data.queued, 0);
      assert.equal(data.failed, 2);
      assert.equal(data.requested, 2);
      assert.equal(data.valid, 0);
      const error = { code: 'CONT-001', description: 'Invalid mobile number.' };
      assert.deepEqual(data.invalid, [
        { mobile: { number: '+1234567890' }, error },
        { mobile: { number: '12', country: 'GB' }, error },
      ]);
      assert.equal(await balance(acc), before);
    });
  });

  describe('texts', () => {
    it('fails a message that renders empty without media with MSG-004, uncharged, and sends the others', async () => {
      const { acc } = await accountWith(0);
      const named = await newContact(acc, { firstName: 'Ann' });
      const blank = await newContact(acc);
      const before = await balance(acc);
      const res = await send(acc, {
        contacts: [{ id: named.id }, { id: blank.id }],
        template: '{{{firstName}}}',
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = body(res).data;
      assert.equal(data.queued, 1);
      assert.equal(data.failed, 1);
      const empty = data.messages.find((m: { contact: { id: string } }) => m.contact.id === blank.id);
      assert.equal(empty.status, 'failed');
      assert.equal(empty.error.code, 'MSG-004');
      assert.equal(empty.price, 0);
      const sent = data.messages.find((m: { contact: { id: string } }) => m.contact.id === named.id);
      assert.equal(sent.status, 'queued');
      assert.equal(Math.round((before - (await balance(acc))) * 1e4), Math.round(sent.price * 1e4));
    });

    it('sends a message that renders empty when it carries media', async () => {
      const { acc } = await accountWith(0);
      const blank = await newContact(acc);
      const res = await send(acc, {
        contacts: [{ id: blank.id }],
        template: '{{{firstName}}}',
        type: 'MMS',
        media: [{ url: 'https://example.com/a.png' }],
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(body(res).data.queued, 1);
    });

    it('fails a message whose rendered text passes 1,600 characters with MSG-005 and refuses a longer template with 400', async () => {
      const { acc } = await accountWith(0);
      const long = await newContact(acc, { attributes: { bio: 'x'.repeat(1000) } });
      const short = await newContact(acc, { attributes: { bio: 'short' } });
      const res = await send(acc, {
        contacts: [{ id: long.id }, { id: short.id }],
        template: `${'y'.repeat(700)} {{{bio}}}`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const data = body(res).data;
      const over = data.messages.find((m: { contact: { id: string } }) => m.contact.id === long.id);
      assert.equal(over.status, 'failed');
      assert.equal(over.error.code, 'MSG-005');
      assert.equal(over.price, 0);
      assert.equal(data.queued, 1);

      const tooLong = await send(acc, { contacts: [{ id: short.id }], template: 'z'.repeat(1601) });
      assert.equal(tooLong.statusCode, 400, tooLong.body);
      assert.match(body(tooLong).error.message, /body\.template/);
      const template = await call(svc.api, 'POST', `${base(acc)}/templates`, {
        auth: acc.auth,
        json: { name: 't', template: 'z'.repeat(1601) },
      });
      assert.equal(template.statusCode, 400, template.body);
      const exact = await send(acc, { contacts: [{ id: short.id }], template: 'z'.repeat(1600) });
      assert.equal(exact.statusCode, 200, exact.body);
      assert.equal(body(exact).data.queued, 1);
    });
  });

  describe('one-off messages (workflow actions, drips, confirmations)', () => {
    it('fails a workflow text that renders empty with MSG-004, uncharged, and stops the run', async () => {
      const { acc } = await accountWith(0);
      const contact = await newContact(acc);
      const wf = await call(svc.api, 'POST', `${base(acc)}/workflows`, {
        auth: acc.auth,
        json: {
          name: 'Empty',
          versions: [
            {
              activate: true,
              definition: {
                nodes: [
                  { id: 'start', type: { id: 'trigger.manual' } },
                  { id: 'send', type: { id: 'action.send-message' }, config: { message: '{{{nickname}}}' } },
                  { id: 'end', type: { id: 'action.end' } },
                ],
                edges: [
                  { id: 'e1', source: 'start', target: 'send' },
                  { id: 'e2', source: 'send', target: 'end' },
                ],
              },
            },
          ],
        },
      });
      assert.equal(wf.statusCode, 201, wf.body);
      const workflowId = body(wf).data.id;
      const before = await balance(acc);
      const enrolled = await call(svc.api, 'POST', `${base(acc)}/workflows/${workflowId}/enrollments`, {
        auth: acc.auth,
        json: { contactId: contact.id },
      });
      assert.equal(enrolled.statusCode, 201, enrolled.body);
      while ((await runDueWorkflows(svc.db, 10, svc.ctx.log, { prices: svc.ctx.config.priceTable })) > 0);
      const messages = body(
        await call(svc.api, 'GET', `${base(acc)}/messages?contactId=${contact.id}`, { auth: acc.auth }),
      ).data;
      assert.equal(messages.length, 1);
      assert.equal(messages[0].status, 'failed');
      assert.equal(messages[0].error.code, 'MSG-004');
      assert.equal(messages[0].price, 0);
      assert.equal(await balance(acc), before);
    });
  });

  describe('media', () => {
    it('refuses media URLs that are not absolute http(s) on a public host with 400 MSG-009', async () => {
      const { acc, ids } = await accountWith(1);
      for (const url of [
        'javascript:alert(1)',
        'ftp://example.com/a.png',
        '/a.png',
        'http://127.0.0.1/a.png',
        'http://[::1]/a.png',
        'http://10.0.0.7/a.png',
        'http://169.254.169.254/latest',
        'http://localhost:3000/a.png',
      ]) {
        const res = await send(acc, {
          contacts: [{ id: ids[0] }],
          template: 'hi',
          type: 'MMS',
          media: [{ url }],
        });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(body(res).error.code, 'MSG-009');
        assert.match(body(res).error.message, /media\[0\]\.url/);
      }
      assert.equal(await messageCount(acc), 0);
      const campaign = await call(svc.api, 'POST', `${base(acc)}/campaigns`, {
        auth: acc.auth,
        json: { name: 'c', media: [{ url: 'http://192.168.1.1/a.png' }] },
      });
      assert.equal(campaign.statusCode, 400, campaign.body);
      assert.equal(body(campaign).error.code, 'MSG-009');
      const template = await call(svc.api, 'POST', `${base(acc)}/templates`, {
        auth: acc.auth,
        json: { name: 't', template: 'hi', media: [{ url: 'http://10.1.2.3/a.png' }] },
      });
      assert.equal(template.statusCode, 400, template.body);
      assert.equal(body(template).error.code, 'MSG-009');
      const ok = await send(acc, {
        contacts: [{ id: ids[0] }],
        template: 'hi',
        type: 'MMS',
        media: [{ url: 'https://cdn.example.com/a.png' }],
      });
      assert.equal(ok.statusCode, 200, ok.body);
    });
  });
});
