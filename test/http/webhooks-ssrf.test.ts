import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { withTx } from '../../src/db/client.ts';
import { emitEvent } from '../../src/domain/events/emit.ts';
import { generateSecret } from '../../src/domain/webhooks/signing.ts';
import { isPublicAddress } from '../../src/net/ssrf.ts';
import { newId } from '../../src/util/ids.ts';
import { webhookDelivery } from '../../src/workers/webhook-delivery.ts';
import { webhookFanOut } from '../../src/workers/webhook-fanout.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('webhook destinations when private addresses are not allowed', () => {
  let svc: TestService;
  let a: TestAccount;
  let server: http.Server;
  let port: number;
  let hits = 0;

  before(async () => {
    svc = await startTestService({ webhooksAllowPrivate: false });
    a = await svc.newAccount();
    server = http.createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    svc.startWorkers([
      webhookFanOut({ idleMs: 20 }),
      webhookDelivery({ policy: { schedule: [0, 30], jitter: 0 }, idleMs: 30, log: () => {} }),
    ]);
  });
  after(async () => {
    await svc.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  describe('POST /v1/accounts/:accountId/webhooks', () => {
    const refused = [
      'http://127.0.0.1/hook',
      'http://localhost:8080/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://172.16.5.4/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.100.100.200/',
      'http://[fd00:ec2::254]/',
      'http://[::ffff:127.0.0.1]/',
      'http://224.0.0.1/',
      'http://0.0.0.0/',
      'http://2130706433/',
      'http://[::127.0.0.1]/',
      'http://[::7f00:1]/',
      'http://[::10.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[64:ff9b::169.254.169.254]/',
      'http://[64:ff9b:1::a00:1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2002:a9fe:a9fe::]/',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
      'http://[2001:4860:0:1:0:5efe:10.0.0.1]/',
    ];
    for (const url of refused) {
      it(`refuses ${url} with 400 HOOK-002`, async () => {
        const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/webhooks`, {
          auth: a.auth,
          json: { url, eventTypes: ['contact-created'] },
        });
        assert.equal(res.statusCode, 400);
        assert.equal(body(res).error.code, 'HOOK-002');
      });
    }

    it('refuses moving an existing subscription to a private address with 400 HOOK-002', async () => {
      const id = newId();
      await svc.db.query(
        `INSERT INTO webhooks (account_id, id, destination, event_types, secret) VALUES ($1, $2, 'https://93.184.216.34/x', '{contact-created}', $3)`,
        [a.accountId, id, generateSecret()],
      );
      const res = await call(svc.api, 'PUT', `/v1/accounts/${a.accountId}/webhooks/${id}`, {
        auth: a.auth,
        json: { url: 'http://10.0.0.1/' },
      });
      assert.equal(res.statusCode, 400);
      assert.equal(body(res).error.code, 'HOOK-002');
    });
  });

  describe('delivery', () => {
    // A subscription that reached the database by another path (or a DNS name that now resolves
    // privately) is still refused when connecting.
    for (const host of ['127.0.0.1', 'localhost']) {
      it(`does not connect to ${host}: the attempt fails and the receiver gets nothing`, async () => {
        const id = newId();
        await svc.db.query(
          `INSERT INTO webhooks (account_id, id, destination, event_types, secret) VALUES ($1, $2, $3, '{contact-updated}', $4)`,
          [a.accountId, id, `http://${host}:${port}/hook`, generateSecret()],
        );
        await withTx(svc.db, (tx) => emitEvent(tx, a.accountId, 'contact-updated', { id: 'c' }));
        const delivery = await eventually(async () => {
          const p = body(
            await call(svc.api, 'GET', `/v1/accounts/${a.accountId}/webhooks/${id}/deliveries`, {
              auth: a.auth,
            }),
          );
          return p.data[0]?.status === 'failed' && p.data[0];
        });
        assert.equal(delivery.attempts.length, 2);
        assert.equal(delivery.attempts[0].statusCode, undefined);
        assert.match(delivery.attempts[0].error, /non-public/);
        assert.equal(hits, 0);
        await svc.db.query('DELETE FROM webhooks WHERE id = $1', [id]);
      });
    }
  });

  describe('isPublicAddress', () => {
    it('refuses every IPv6 form that carries a private IPv4 address', () => {
      const privateV4 = ['127.0.0.1', '10.1.2.3', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0'];
      for (const v4 of privateV4) {
        const [a, b, c, d] = v4.split('.').map(Number);
        const hi = ((a << 8) | b).toString(16);
        const lo = ((c << 8) | d).toString(16);
        for (const ip of [
          `::${v4}`, // IPv4-compatible (::/96)
          `::${hi}:${lo}`,
          `::ffff:${v4}`, // IPv4-mapped
          `::ffff:${hi}:${lo}`,
          `::ffff:0:${v4}`, // SIIT translated
          `64:ff9b::${v4}`, // NAT64, well-known prefix
          `64:ff9b:1::${v4}`, // NAT64, local use
          `2002:${hi}:${lo}::1`, // 6to4
          // Teredo: the client address is stored inverted
          `2001:0:4136:e378:8000:63bf:${(0xffff ^ ((a << 8) | b)).toString(16)}:${(0xffff ^ ((c << 8) | d)).toString(16)}`,
          `2001:4860:0:1:0:5efe:${v4}`, // ISATAP
          `2001:4860:0:1:200:5efe:${v4}`,
        ]) {
          assert.equal(isPublicAddress(ip), false, ip);
          assert.equal(isPublicAddress(`[${ip}]`), false, `[${ip}]`);
        }
      }
      // What a public IPv4 address reached by mapping or NAT64 is still is: public.
      for (const ip of ['::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2001:4860:0:1:200:5efe:8.8.8.8'])
        assert.equal(isPublicAddress(ip), true, ip);
      // IPv4-compatible, 6to4 and Teredo are refused whatever they carry.
      for (const ip of ['::8.8.8.8', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'])
        assert.equal(isPublicAddress(ip), false, ip);
    });

    it('accepts public unicast addresses only', () => {
      for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])
        assert.equal(isPublicAddress(ip), true, ip);
      for (const ip of [
        '127.0.0.1',
        '::1',
        '10.0.0.1',
        '169.254.169.254',
        'fe80::1',
        '::ffff:10.0.0.1',
        '64:ff9b::a00:1',
        '255.255.255.255',
        'nonsense',
      ]) {
        assert.equal(isPublicAddress(ip), false, ip);
      }
    });
  });
});
