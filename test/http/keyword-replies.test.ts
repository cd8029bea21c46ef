import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

const DEFAULTS = {
  optOut:
    '{{{accountName}}}: You are unsubscribed and will receive no further messages. Reply START to resubscribe.',
  optIn: '{{{accountName}}}: You are subscribed again. Reply HELP for help, STOP to unsubscribe.',
  help: '{{{accountName}}}: Reply STOP to unsubscribe. Msg & data rates may apply.',
};

describe('PUT /v1/accounts/:accountId keywordReplies: the STOP, START and HELP texts', () => {
  let svc: TestService;
  let a: TestAccount;
  let b: TestAccount;
  let n = 0;
  const sender = () => `+1415555${String(700 + n++).padStart(4, '0')}`;
  const put = (acc: TestAccount, json: object, auth: object | undefined = acc.auth) =>
    call(svc.api, 'PUT', `/v1/accounts/${acc.accountId}`, { auth, json } as Parameters<typeof call>[3]);
  const account = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}`, { auth: acc.auth })).data;
  const ourNumber = async (acc: TestAccount) =>
    body(await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/phonenumbers`, { auth: acc.auth })).data[0]
      .number as string;
  /** Texts `text` from `from` to the account's number; answers the reply the texter got. */
  const texts = async (acc: TestAccount, from: string, text: string, firstName?: string) => {
    if (firstName)
      await call(svc.api, 'POST', `/v1/accounts/${acc.accountId}/contacts`, {
        auth: acc.auth,
        json: { mobile: from, firstName },
      });
    const res = await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
      json: { from, to: await ourNumber(acc), text },
    });
    assert.equal(res.statusCode, 200, res.body);
    return eventually(async () =>
      body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/messages?limit=20`, { auth: acc.auth }),
      ).data.find(
        (m: { outgoing: boolean; contact?: object }) =>
          m.outgoing && JSON.stringify(m.contact).includes(from),
      ),
    );
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount({ balance: 10 });
    b = await svc.newAccount({ balance: 10 });
    await put(a, { name: "Rosa's Bakery" });
    await put(b, { name: 'Untouched Shop' });
  });
  after(() => svc.close());

  it('shows the default wording to an account that never edited it, and sends exactly that', async () => {
    assert.deepEqual((await account(b)).keywordReplies, DEFAULTS);
    const stop = await texts(b, sender(), 'STOP');
    assert.equal(
      stop.message,
      'Untouched Shop: You are unsubscribed and will receive no further messages. Reply START to resubscribe.',
    );
    const help = await texts(b, sender(), 'HELP');
    assert.equal(help.message, 'Untouched Shop: Reply STOP to unsubscribe. Msg & data rates may apply.');
  });

  it('sends the edited STOP, START and HELP texts, with the account name and the texter’s name filled in', async () => {
    const res = await put(a, {
      keywordReplies: {
        optOut:
          '  {{{accountName}}}: Bye {{{firstName}}}, you will not get any more texts from us. Text START to come back. ',
        optIn: 'Welcome back to {{{ accountName }}}! Text STOP any time to leave.',
        help: "Rosa's help desk: call 555-0100. Reply STOP to opt out.",
      },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(
      body(res).data.keywordReplies.optOut,
      '{{{accountName}}}: Bye {{{firstName}}}, you will not get any more texts from us. Text START to come back.',
    );
    const from = sender();
    const stop = await texts(a, from, 'stop', 'Ada');
    assert.equal(
      stop.message,
      "Rosa's Bakery: Bye Ada, you will not get any more texts from us. Text START to come back.",
    );
    const start = await eventually(async () => {
      await call(svc.externals, 'POST', '/v1/providers/simulator/messages', {
        json: { from, to: await ourNumber(a), text: 'START' },
      });
      return body(
        await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/messages?limit=20`, { auth: a.auth }),
      ).data.find(
        (m: { outgoing: boolean; message: string }) => m.outgoing && m.message.startsWith('Welcome'),
      );
    });
    assert.equal(start.message, "Welcome back to Rosa's Bakery! Text STOP any time to leave.");
    const help = await texts(a, sender(), 'INFO');
    assert.equal(help.message, "Rosa's help desk: call 555-0100. Reply STOP to opt out.");
  });

  it('changes only the replies given, and null goes back to the default wording', async () => {
    const res = await put(a, { keywordReplies: { help: null } });
    assert.equal(res.statusCode, 200, res.body);
    const got = body(res).data.keywordReplies;
    assert.equal(got.help, DEFAULTS.help);
    assert.match(got.optOut, /^\{\{\{accountName\}\}\}: Bye/);
    assert.match(got.optIn, /^Welcome back/);
  });

  it('refuses a reply that is empty, too long, lacks the words carriers require or uses a merge field it cannot fill, changing nothing', async () => {
    const before = (await account(a)).keywordReplies;
    const cases: [object, RegExp][] = [
      [{ optOut: '   ' }, /must not be empty/],
      [{ optOut: `You will receive no further messages. ${'x'.repeat(1600)}` }, /at most 1600/],
      [{ optOut: 'Thanks, you are all set!' }, /no more messages/],
      [{ optIn: 'Welcome back!' }, /how to opt out/],
      [{ help: 'Call us on 555-0100.' }, /how to opt out/],
      [{ help: 'Hi {{{plan}}}: reply STOP to opt out.' }, /\{\{\{plan\}\}\}/],
      [{ help: 'Hi {{{contact.attributes.vip}}}: reply STOP to opt out.' }, /cannot fill/],
      [{ help: 'Hi {{{firstName: reply STOP to opt out.' }, /unclosed/],
      [{ optOut: 42 }, /./],
      [{ optOut: 'x'.repeat(5000) }, /./],
    ];
    for (const [replies, message] of cases) {
      const res = await put(a, { keywordReplies: replies });
      assert.equal(res.statusCode, 400, `${JSON.stringify(replies).slice(0, 80)}: ${res.body}`);
      assert.equal(body(res).error.code, 'VAL-001');
      assert.match(body(res).error.description, message);
    }
    // One bad reply refuses the whole change.
    const mixed = await put(a, { name: 'Renamed', keywordReplies: { optIn: 'Fine.', help: null } });
    assert.equal(mixed.statusCode, 400, mixed.body);
    const after = await account(a);
    assert.deepEqual(after.keywordReplies, before);
    assert.equal(after.name, "Rosa's Bakery");
  });

  // A pattern that backtracked over the run would take far longer than any machine's slowness: the
  // test's own bound is the failure mode of that hang, not a claim about speed (docs/testing.md).
  it('takes hostile text as text: a long run of braces and spaces is answered, not backtracked over', {
    timeout: 30_000,
  }, async () => {
    const res = await put(a, { keywordReplies: { help: `{{{${' '.repeat(1500)} Reply STOP` } });
    assert.equal(res.statusCode, 400, res.body);
    const rtl = await put(a, {
      keywordReplies: { help: '\u202eمرحبا <script>alert(1)</script> Reply STOP to opt out.' },
    });
    assert.equal(rtl.statusCode, 200, rtl.body);
    assert.equal(
      body(rtl).data.keywordReplies.help,
      '\u202eمرحبا <script>alert(1)</script> Reply STOP to opt out.',
    );
  });

  it('answers 401 without a token and 403 for another account, whose replies stay', async () => {
    const none = await call(svc.api, 'PUT', `/v1/accounts/${b.accountId}`, {
      json: { keywordReplies: { optOut: 'No more messages, ever.' } },
    });
    assert.equal(none.statusCode, 401, none.body);
    const theirs = await put(b, { keywordReplies: { optOut: 'No more messages, ever.' } }, a.auth);
    assert.equal(theirs.statusCode, 403, theirs.body);
    assert.deepEqual((await account(b)).keywordReplies, DEFAULTS);
  });
});
