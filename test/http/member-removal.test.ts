/**
 * Leaving an account ends a person's access, including what acts in their name (issue 28): a
 * removed member's SMPP credentials stop binding and their open binds close, the API clients they
 * created (and the clients created through those) stop getting and using tokens, and their
 * webhooks receive nothing until an administrator confirms them. What an administrator who stays
 * created, and other accounts' objects, are untouched.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ensureUser } from '../../src/domain/users/members.ts';
import { type Role, scopesFor } from '../../src/domain/users/roles.ts';
import { EVENT_TYPES } from '../../src/schemas/enums.ts';
import { webhookDelivery } from '../../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../../src/workers/webhook-fanout.ts';
import { body, call, eventually, type TestAccount } from '../helpers.ts';
import { type Credential, SERVER_OPTIONS, smppSuite, submitParams } from '../support/smpp-suite.ts';

const ESME_RINVSYSID = 0x0f;

interface Person {
  userId: string;
  auth: { authorization: string };
}

/** A webhook destination of our own: the event ids each path received. */
async function startReceiver() {
  const received: { path: string; raw: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', raw: Buffer.concat(chunks).toString() });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    at: (path: string) => received.filter((r) => r.path === path),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('removing a member cuts off what acts in their name', () => {
  const smppd = smppSuite(SERVER_OPTIONS);
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let acct: TestAccount;
  let other: TestAccount;
  let ada: Person; // Administrator, stays
  let n = 0;

  const api = () => smppd.svc.api;
  const base = (a: TestAccount) => `/v1/accounts/${a.accountId}`;

  /** A console user of the account with this role, and the token the console would mint for them. */
  async function person(a: TestAccount, role: Role): Promise<Person> {
    const email = `p${++n}-${role.toLowerCase()}@example.com`;
    const { userId } = await ensureUser(smppd.svc.db, a.accountId, { email, role }, { id: 'test' });
    const token = await smppd.svc.ctx.tokens.issue(
      { id: `user:${userId}`, name: email, accountId: a.accountId, email },
      scopesFor(role),
      300,
    );
    return { userId, auth: { authorization: `Bearer ${token}` } };
  }

  async function issueAs(
    a: TestAccount,
    p: { auth: Record<string, string> },
    name: string,
  ): Promise<Credential> {
    const res = await call(api(), 'POST', `${base(a)}/smpp/credentials`, { auth: p.auth, json: { name } });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data;
  }

  async function subscribeAs(a: TestAccount, p: { auth: Record<string, string> }, path: string) {
    const res = await call(api(), 'POST', `${base(a)}/webhooks`, {
      auth: p.auth,
      json: { url: rx.url(path), eventTypes: [...EVENT_TYPES] },
    });
    assert.equal(res.statusCode, 200, res.body);
    return body(res).data as { id: string; status: string };
  }

  async function remove(a: TestAccount, by: { auth: Record<string, string> }, userId: string) {
    const res = await call(api(), 'DELETE', `${base(a)}/users/${userId}`, { auth: by.auth });
    assert.equal(res.statusCode, 200, res.body);
    return body(res);
  }

  /** Creates a contact through the API (a `contact-created` event) and answers its mobile number. */
  async function newContact(a: TestAccount): Promise<string> {
    const mobile = `+1201555${String(1000 + (++n % 9000))}`;
    const res = await call(api(), 'POST', `${base(a)}/contacts`, { auth: a.auth, json: { mobile } });
    assert.equal(res.statusCode, 201, res.body);
    return mobile;
  }

  /** Whether a path received the contact-created event of the contact with this mobile number. */
  const gotContact = async (path: string, mobile: string) =>
    rx.at(path).some((r) => r.raw.includes('"contact-created"') && r.raw.includes(`"${mobile}"`));

  before(async () => {
    rx = await startReceiver();
    smppd.svc.startWorkers([
      webhookFanOut({ idleMs: 20 }),
      webhookDelivery({
        policy: { schedule: [0, 50, 100], jitter: 0.1, disableAfterMs: 60_000 },
        timeoutMs: 2000,
        idleMs: 20,
      }),
    ]);
    acct = await smppd.svc.newAccount({ balance: 100 });
    other = await smppd.svc.newAccount({ balance: 100 });
    ada = await person(acct, 'Administrator');
  });
  after(() => rx?.close());

  it('a removed member’s SMPP credential no longer binds and its open bind is closed; others bind on', async () => {
    const mo = await person(acct, 'Member');
    const moCred = await issueAs(acct, mo, 'Mo’s ESME');
    const adaCred = await issueAs(acct, ada, 'Ada’s ESME');
    const otherCred = await issueAs(other, other, 'the other account');
    const moEsme = await smppd.bound('transceiver', moCred);
    const adaEsme = await smppd.bound('transceiver', adaCred);
    const otherEsme = await smppd.bound('transceiver', otherCred);

    const removed = await remove(acct, ada, mo.userId);
    assert.deepEqual(
      removed.data.smppCredentials.map((c: { id: string }) => c.id),
      [moCred.id],
    );
    assert.equal(removed.data.smppCredentials[0].revoked.reason, 'creator-removed');

    // The session bound before the removal is closed (the server's credential check), and no new
    // bind is accepted: the credential is as if unknown.
    await eventually(async () => moEsme.closed, 15_000);
    const again = await smppd.connect();
    assert.equal(
      (await again.bind('transceiver', moCred.systemId, moCred.password)).command_status,
      ESME_RINVSYSID,
    );

    // The administrator's credential and the other account's are untouched: still bound, still sending.
    const src = await smppd.numberOf(acct);
    assert.equal((await adaEsme.submit(submitParams(src))).command_status, 0);
    assert.equal((await otherEsme.submit(submitParams(await smppd.numberOf(other)))).command_status, 0);
    assert.equal(adaEsme.closed, false);
    const fresh = await smppd.connect();
    assert.equal((await fresh.bind('transmitter', adaCred.systemId, adaCred.password)).command_status, 0);

    // The credentials page shows what was cut off and why.
    const list = body(await call(api(), 'GET', `${base(acct)}/smpp/credentials`, { auth: ada.auth })).data;
    const byId = new Map(list.map((c: { id: string }) => [c.id, c]));
    assert.equal((byId.get(moCred.id) as { revoked: { reason: string } }).revoked.reason, 'creator-removed');
    assert.equal((byId.get(adaCred.id) as { revoked?: unknown }).revoked, undefined);
  });

  it('a removed administrator’s API clients (and the clients made through them) stop getting and using tokens', async () => {
    const bob = await person(acct, 'Administrator');
    const mk = async (auth: Record<string, string>, name: string) => {
      const res = await call(api(), 'POST', `${base(acct)}/clients`, { auth, json: { name } });
      assert.equal(res.statusCode, 201, res.body);
      return body(res).data as { id: string; secret: string };
    };
    const tokenOf = (c: { id: string; secret: string }) =>
      call(api(), 'POST', '/oauth2/token', {
        json: { grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret },
      });
    const bobClient = await mk(bob.auth, 'Bob’s integration');
    const bobToken = body(await tokenOf(bobClient)).access_token as string;
    // A client created with Bob's client: Bob was answered its secret too.
    const grandchild = await mk({ authorization: `Bearer ${bobToken}` }, 'made by Bob’s client');
    const adaClient = await mk(ada.auth, 'Ada’s integration');
    const adaToken = body(await tokenOf(adaClient)).access_token as string;
    const grandToken = body(await tokenOf(grandchild)).access_token as string;

    const removed = await remove(acct, ada, bob.userId);
    assert.deepEqual(
      removed.data.apiClients.map((c: { id: string }) => c.id).sort(),
      [bobClient.id, grandchild.id].sort(),
    );
    for (const c of removed.data.apiClients) {
      assert.equal(c.revoked, true);
      assert.equal(c.revokedReason, 'creator-removed');
    }

    // No new token, and the tokens they hold stop working.
    for (const c of [bobClient, grandchild]) {
      const res = await tokenOf(c);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(body(res).error.code, 'invalid_client');
    }
    for (const t of [bobToken, grandToken]) {
      const res = await call(api(), 'GET', base(acct), { auth: { authorization: `Bearer ${t}` } });
      assert.equal(res.statusCode, 401, res.body);
    }
    // Ada's client and the account's own client work on.
    assert.equal((await tokenOf(adaClient)).statusCode, 200);
    assert.equal(
      (await call(api(), 'GET', base(acct), { auth: { authorization: `Bearer ${adaToken}` } })).statusCode,
      200,
    );
    assert.equal((await call(api(), 'GET', base(acct), { auth: acct.auth })).statusCode, 200);

    const list = body(await call(api(), 'GET', `${base(acct)}/clients?limit=100`, { auth: ada.auth })).data;
    const shown = list.find((c: { id: string }) => c.id === bobClient.id);
    assert.equal(shown.revokedReason, 'creator-removed');
    assert.equal(shown.createdBy.id, bob.userId);
  });

  it('a removed member’s webhook receives nothing until an administrator confirms it, then receives again', async () => {
    const mo = await person(acct, 'Member');
    const mia = await person(acct, 'Member'); // stays
    const moHook = await subscribeAs(acct, mo, '/mo');
    await subscribeAs(acct, ada, '/ada');
    const otherHook = await subscribeAs(other, other, '/other');
    // Before the removal Mo's webhook receives.
    const c0 = await newContact(acct);
    await eventually(() => gotContact('/mo', c0));

    const removed = await remove(acct, ada, mo.userId);
    assert.deepEqual(
      removed.data.webhooks.map((w: { id: string }) => w.id),
      [moHook.id],
    );
    assert.equal(removed.data.webhooks[0].status, 'paused');
    assert.equal(removed.data.webhooks[0].paused.reason, 'creator-removed');

    // A new event reaches Ada's webhook (the fan-out has run for it) and not Mo's.
    const c1 = await newContact(acct);
    await eventually(() => gotContact('/ada', c1));
    assert.equal(await gotContact('/mo', c1), false);
    const deliveries = body(
      await call(api(), 'GET', `${base(acct)}/webhooks/${moHook.id}/deliveries?limit=100`, {
        auth: ada.auth,
      }),
    ).data as { eventId: string }[];
    assert.equal(deliveries.length, 1, 'only the delivery from before the removal');
    // The other account's webhook is untouched.
    const o1 = await newContact(other);
    await eventually(() => gotContact('/other', o1));
    const otherShown = body(
      await call(api(), 'GET', `${base(other)}/webhooks/${otherHook.id}`, { auth: other.auth }),
    ).data;
    assert.equal(otherShown.status, 'active');

    // A member who stays cannot resume it, neither by confirming nor through PUT; another account cannot either.
    for (const [method, path, json] of [
      ['POST', `/webhooks/${moHook.id}/confirm`, undefined],
      ['PUT', `/webhooks/${moHook.id}`, { status: 'active' }],
      ['PUT', `/webhooks/${moHook.id}`, { status: 'disabled' }],
    ] as const) {
      const res = await call(api(), method, `${base(acct)}${path}`, { auth: mia.auth, json });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(body(res).error.code, 'HOOK-007');
    }
    const stranger = await call(api(), 'POST', `${base(acct)}/webhooks/${moHook.id}/confirm`, {
      auth: other.auth,
    });
    assert.equal(stranger.statusCode, 403);
    const shown = body(
      await call(api(), 'GET', `${base(acct)}/webhooks/${moHook.id}`, { auth: ada.auth }),
    ).data;
    assert.equal(shown.status, 'paused');

    // The administrator confirms it: it receives the next event.
    const confirmed = await call(api(), 'POST', `${base(acct)}/webhooks/${moHook.id}/confirm`, {
      auth: ada.auth,
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    assert.equal(body(confirmed).data.status, 'active');
    assert.equal(body(confirmed).data.paused, undefined);
    const c2 = await newContact(acct);
    await eventually(() => gotContact('/mo', c2));
    const twice = await call(api(), 'POST', `${base(acct)}/webhooks/${moHook.id}/confirm`, {
      auth: ada.auth,
    });
    assert.equal(twice.statusCode, 409);
    assert.equal(body(twice).error.code, 'HOOK-006');
  });

  it('a change of role is not leaving: a demoted administrator’s objects keep working', async () => {
    const eve = await person(acct, 'Administrator');
    const cred = await issueAs(acct, eve, 'Eve’s ESME');
    const hook = await subscribeAs(acct, eve, '/eve');
    const res = await call(api(), 'PUT', `${base(acct)}/users/${eve.userId}`, {
      auth: ada.auth,
      json: { role: 'Member' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const e = await smppd.connect();
    assert.equal((await e.bind('transmitter', cred.systemId, cred.password)).command_status, 0);
    const shown = body(
      await call(api(), 'GET', `${base(acct)}/webhooks/${hook.id}`, { auth: ada.auth }),
    ).data;
    assert.equal(shown.status, 'active');
  });

  it('a member who changed another’s webhook destination, or rotated its secret, holds it: removing them pauses it', async () => {
    const ned = await person(acct, 'Member');
    const ola = await person(acct, 'Member');
    const hook1 = await subscribeAs(acct, ada, '/ada-1');
    const hook2 = await subscribeAs(acct, ada, '/ada-2');
    const put = await call(api(), 'PUT', `${base(acct)}/webhooks/${hook1.id}`, {
      auth: ned.auth,
      json: { url: rx.url('/ned') },
    });
    assert.equal(put.statusCode, 200, put.body);
    const rot = await call(api(), 'POST', `${base(acct)}/webhooks/${hook2.id}/rotate-secret`, {
      auth: ola.auth,
    });
    assert.equal(rot.statusCode, 200, rot.body);
    assert.deepEqual(
      (await remove(acct, ada, ned.userId)).data.webhooks.map((w: { id: string }) => w.id),
      [hook1.id],
    );
    assert.deepEqual(
      (await remove(acct, ada, ola.userId)).data.webhooks.map((w: { id: string }) => w.id),
      [hook2.id],
    );
  });
});
