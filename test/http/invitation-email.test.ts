/**
 * Console invitations by e-mail: with SMTP_URL and SMTP_FROM the invitation link is e-mailed to the
 * invited person through a real SMTP server (the `smtp-server` package on 127.0.0.1, a random
 * port, with a password), after the invitation is stored; a server that refuses the mail or cannot
 * be reached leaves a 201 with `emailStatus: failed`, a reason and a log line; without SMTP the link
 * is only shown (`emailStatus: none`) and nothing is sent.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createSmtpMailer } from '../../src/providers/mail/smtp.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

/** One message as the SMTP server received it: envelope, headers and decoded text. */
interface Received {
  mailFrom: string;
  rcptTo: string[];
  headers: Record<string, string>;
  text: string;
  /** Invitations stored for the recipient when the message arrived (it must be after the commit). */
  storedBefore: number;
}

/** The headers (unfolded, names lower-cased) and the text of a raw message (7bit or quoted-printable). */
function parseMessage(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let text = raw.slice(split + 4);
  if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
    text = text
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  return { headers, text: text.replace(/\r\n/g, '\n') };
}

describe('console invitations e-mailed through SMTP (SMTP_URL, SMTP_FROM)', () => {
  let smtp: SMTPServer;
  let smtpPort: number;
  let svc: TestService;
  let acct: TestAccount;
  let other: TestAccount;
  const received: Received[] = [];
  const logs: string[] = [];
  const logins: string[] = [];

  const invite = (who: TestAccount, email: string, role = 'Member', accountId = who.accountId) =>
    call(svc.api, 'POST', `/v1/accounts/${accountId}/users`, { auth: who.auth, json: { email, role } });

  before(async () => {
    smtp = new SMTPServer({
      // A plain local server: no STARTTLS (its certificate would be self-signed), AUTH over it allowed.
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, cb) {
        logins.push(`${auth.username}:${auth.password}`);
        if (auth.username === 'sparrow' && auth.password === 'p@ss word')
          return cb(null, { user: 'sparrow' });
        return cb(new Error('535 authentication failed'));
      },
      onRcptTo(address, _session, cb) {
        if (address.address.startsWith('refused')) {
          const err = new Error('mailbox unavailable') as Error & { responseCode: number };
          err.responseCode = 550;
          return cb(err);
        }
        return cb();
      },
      onData(stream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', async () => {
          const rcptTo = session.envelope.rcptTo.map((a) => a.address);
          const stored = await svc.db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM user_invitations WHERE email = $1',
            [rcptTo[0]],
          );
          const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          received.push({
            mailFrom,
            rcptTo,
            ...parseMessage(Buffer.concat(chunks).toString('utf8')),
            storedBefore: stored.rows[0].n,
          });
          cb();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
    smtpPort = (smtp.server.address() as AddressInfo).port;
    svc = await startTestService(
      {},
      {
        env: {
          SMTP_URL: `smtp://sparrow:p%40ss%20word@127.0.0.1:${smtpPort}`,
          SMTP_FROM: 'Sparrow Console <no-reply@sparrow.example>',
        },
      },
    );
    svc.ctx.log = (msg) => logs.push(msg);
    acct = await svc.newAccount();
    other = await svc.newAccount();
  });
  after(async () => {
    await svc?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('e-mails the invitation link to the invited person only, after the invitation is stored', async () => {
    const res = await invite(acct, 'Grace@Example.com', 'Viewer');
    assert.equal(res.statusCode, 201, res.body);
    const inv = body(res).data;
    assert.equal(inv.email, 'grace@example.com');
    assert.equal(inv.emailStatus, 'sent');
    assert.equal(inv.emailError, undefined);
    assert.match(inv.link, /\/console\/#\/accept\/inv_[A-Za-z0-9_-]+$/);

    assert.equal(received.length, 1);
    const mail = received[0]!;
    assert.deepEqual(mail.rcptTo, ['grace@example.com'], 'the envelope names the invitee and no one else');
    assert.equal(mail.headers.to, 'grace@example.com');
    assert.equal(mail.headers.cc, undefined);
    assert.equal(mail.headers.bcc, undefined);
    assert.equal(mail.mailFrom, 'no-reply@sparrow.example');
    assert.equal(mail.headers.from, 'Sparrow Console <no-reply@sparrow.example>');
    assert.match(mail.headers.subject ?? '', /invited/);
    assert.ok(mail.text.includes(inv.link), `the link in the text:\n${mail.text}`);
    assert.match(mail.text, /as Viewer/);
    assert.equal(mail.storedBefore, 1, 'the invitation was committed before the mail was sent');
    assert.deepEqual(logins, ['sparrow:p@ss word'], 'signed in to the server with the URL’s decoded user');

    const row = await svc.db.query(
      'SELECT email_status, email_error, emailed_at FROM user_invitations WHERE email = $1',
      ['grace@example.com'],
    );
    assert.equal(row.rows[0].email_status, 'sent');
    assert.equal(row.rows[0].email_error, null);
    assert.ok(row.rows[0].emailed_at instanceof Date);

    // The link in the e-mail works: the invitation it names is the one just made.
    const token = inv.link.split('/accept/')[1];
    const info = await call(svc.api, 'GET', `/console/api/invitations/${token}`);
    assert.equal(info.statusCode, 200, info.body);
    assert.equal(body(info).data.email, 'grace@example.com');
  });

  it('sends each invitation to its own invitee: two invitations, two mails, one recipient each', async () => {
    const before = received.length;
    const a = body(await invite(acct, 'ada@example.com')).data;
    const b = body(await invite(acct, 'bob@example.com')).data;
    const mine = received.slice(before);
    assert.deepEqual(
      mine.map((m) => [m.rcptTo, m.headers.to, m.text.includes(a.link), m.text.includes(b.link)]),
      [
        [['ada@example.com'], 'ada@example.com', true, false],
        [['bob@example.com'], 'bob@example.com', false, true],
      ],
    );
  });

  it('refuses an address that would name several recipients or a display name (400), sending nothing', async () => {
    const before = received.length;
    for (const email of [
      'eve,ada@example.com',
      'eve@evil.example,ada@example.com',
      'Ada <ada@example.com>',
      'ada@example.com;eve@evil.example',
      '"eve@evil.example"@example.com',
      'ada@example.com\r\nBcc: eve@evil.example',
    ]) {
      const res = await invite(acct, email);
      assert.equal(res.statusCode, 400, `${email}: ${res.body}`);
      assert.equal(body(res).success, false);
    }
    assert.equal(received.length, before);
  });

  it('keeps the invitation and answers 201 with emailStatus failed when the server refuses the mail', async () => {
    const res = await invite(acct, 'refused@example.com');
    assert.equal(res.statusCode, 201, res.body);
    const inv = body(res).data;
    assert.equal(inv.emailStatus, 'failed');
    assert.match(inv.emailError, /550|unavailable/);
    assert.match(inv.link, /\/accept\/inv_/);
    const row = await svc.db.query(
      'SELECT email_status, email_error FROM user_invitations WHERE email = $1',
      ['refused@example.com'],
    );
    assert.equal(row.rows[0].email_status, 'failed');
    assert.match(row.rows[0].email_error, /550|unavailable/);
    assert.ok(
      logs.some((l) => l.includes('refused@example.com') && /failed/.test(l)),
      logs.join('\n'),
    );
  });

  it('answers 201 with emailStatus failed when the SMTP server cannot be reached', async () => {
    const saved = svc.ctx.mailer;
    const closed = new SMTPServer({ logger: false });
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const deadPort = (closed.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    svc.ctx.mailer = createSmtpMailer(
      loadConfig({ SMTP_URL: `smtp://127.0.0.1:${deadPort}`, SMTP_FROM: 'no-reply@sparrow.example' }).smtp!,
    );
    try {
      const res = await invite(acct, 'nobody-home@example.com');
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(body(res).data.emailStatus, 'failed');
      assert.match(body(res).data.emailError, /ECONNREFUSED|connect/i);
    } finally {
      svc.ctx.mailer?.close();
      svc.ctx.mailer = saved;
    }
  });

  it('sends nothing for a refused caller: no token (401), another account (403/404), a Viewer token (403)', async () => {
    const before = received.length;
    const anonymous = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/users`, {
      json: { email: 'x@example.com', role: 'Member' },
    });
    assert.equal(anonymous.statusCode, 401);
    const elsewhere = await invite(other, 'x@example.com', 'Member', acct.accountId);
    assert.ok([403, 404].includes(elsewhere.statusCode), elsewhere.body);
    const reader = await svc.newAccount({ scopes: ['users:read'] });
    const readOnly = await invite(reader, 'x@example.com');
    assert.equal(readOnly.statusCode, 403, readOnly.body);
    assert.equal(received.length, before);
  });

  it('reads SMTP_URL and SMTP_FROM strictly, never echoing the URL (it holds a password)', () => {
    const bad = (env: Record<string, string>, message: RegExp) =>
      assert.throws(
        () => loadConfig(env),
        (err: unknown) =>
          err instanceof ConfigError && message.test(err.message) && !err.message.includes('secret'),
      );
    bad({ SMTP_URL: 'http://u:secret@mail.example.com', SMTP_FROM: 'a@b.example' }, /SMTP_URL must be/);
    bad({ SMTP_URL: 'not a url secret' }, /SMTP_URL must be/);
    bad({ SMTP_URL: 'smtp://u:secret@mail.example.com' }, /SMTP_URL needs SMTP_FROM/);
    bad({ SMTP_URL: 'smtp://u:secret@mail.example.com', SMTP_FROM: 'a@b, c@d' }, /SMTP_FROM/);
    bad({ SMTP_FROM: 'a@b.example' }, /SMTP_FROM needs SMTP_URL/);
    assert.equal(loadConfig({}).smtp, undefined);
    assert.deepEqual(
      loadConfig({ SMTP_URL: 'smtps://mail.example.com', SMTP_FROM: 'Ops <ops@example.com>' }).smtp,
      {
        host: 'mail.example.com',
        port: 465,
        secure: true,
        user: undefined,
        pass: undefined,
        from: 'Ops <ops@example.com>',
        fromAddress: 'ops@example.com',
      },
    );
    assert.equal(loadConfig({ SMTP_URL: 'smtp://m.example', SMTP_FROM: 'a@b.example' }).smtp?.port, 587);
  });
});

describe('console invitations without SMTP', () => {
  let svc: TestService;
  let smtp: SMTPServer;
  let delivered = 0;

  before(async () => {
    // A server that would receive anything sent: the service is not told about it.
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, _session, cb) {
        delivered++;
        stream.resume();
        stream.on('end', () => cb());
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
    svc = await startTestService();
  });
  after(async () => {
    await svc?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('shows the link as before, with emailStatus none, and sends no e-mail', async () => {
    assert.equal(svc.ctx.mailer, undefined);
    const acct = await svc.newAccount();
    const res = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/users`, {
      auth: acct.auth,
      json: { email: 'ada@example.com', role: 'Member' },
    });
    assert.equal(res.statusCode, 201, res.body);
    const inv = body(res).data;
    assert.equal(inv.emailStatus, 'none');
    assert.equal(inv.emailError, undefined);
    assert.match(inv.link, /\/console\/#\/accept\/inv_/);
    const row = await svc.db.query('SELECT email_status FROM user_invitations WHERE email = $1', [
      'ada@example.com',
    ]);
    assert.equal(row.rows[0].email_status, 'none');
    assert.equal(delivered, 0);
  });
});
