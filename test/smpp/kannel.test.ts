/**
 * Kannel (Debian's kannel package: bearerbox + smsbox) binds to Sparrow's SMPP server as an SMSC
 * connection (`smsc = smpp`, transceiver). A message posted to Kannel's sendsms arrives in Sparrow
 * as a message row, its delivery receipt reaches Kannel's dlr-url, and a text to the account's
 * number reaches Kannel's sms-service. Skipped, with the reason, when the binaries are absent.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { activeAccountNumbers } from '../../src/db/queries/phone-numbers.ts';
import { receiveMessage } from '../../src/domain/inbound/receive-message.ts';
import { SmppServer } from '../../src/smpp/server.ts';
import { newId } from '../../src/util/ids.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { BEARERBOX, KANNEL_MISSING, kannelConfig, SMSBOX } from '../support/kannel-config.ts';
import { testPort } from '../support/ports.ts';

const skip = KANNEL_MISSING;

describe('Kannel binds to the SMPP server as its SMSC', { skip }, () => {
  let svc: TestService;
  let server: SmppServer;
  let acct: TestAccount;
  let ourNumber: string;
  let dir: string;
  let sendsmsPort: number;
  const procs: ChildProcess[] = [];
  const output: string[] = [];
  const hits: URL[] = [];
  let hooks: http.Server;
  let hooksPort: number;

  const spawnBox = (bin: string, conf: string) => {
    const p = spawn(bin, ['-v', '1', conf], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout?.on('data', (b: Buffer) => output.push(b.toString()));
    p.stderr?.on('data', (b: Buffer) => output.push(b.toString()));
    procs.push(p);
  };

  before(async () => {
    svc = await startTestService();
    svc.startWorkers();
    server = new SmppServer(svc.db, svc.ctx.config, { pollMs: 50 });
    const smppPort = await server.listen(0, '127.0.0.1');
    acct = await svc.newAccount({ balance: 100 });
    const res = await call(svc.api, 'POST', `/v1/accounts/${acct.accountId}/smpp/credentials`, {
      auth: acct.auth,
      json: { name: 'Kannel' },
    });
    const cred = body(res).data;
    ourNumber = (await activeAccountNumbers(svc.db, acct.accountId))[0].number;

    hooks = http.createServer((req, res) => {
      hits.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
      res.end('ok');
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
    hooksPort = (hooks.address() as net.AddressInfo).port;

    const [adminPort, smsboxPort] = [await testPort(), await testPort()];
    sendsmsPort = await testPort();
    dir = mkdtempSync(path.join(os.tmpdir(), 'sparrow-kannel-'));
    const conf = path.join(dir, 'kannel.conf');
    writeFileSync(
      conf,
      kannelConfig({
        adminPort,
        smsboxPort,
        sendsmsPort,
        logLevel: 1,
        smsc: { id: 'sparrow', port: smppPort, username: cred.systemId, password: cred.password },
        sendsmsUser: { username: 'tester', password: 'testpass' },
        moUrl: `http://127.0.0.1:${hooksPort}/mo?from=%p&to=%P&text=%a`,
      }),
    );
    spawnBox(BEARERBOX as string, conf);
    await eventually(async () => server.boundSessions.length > 0, 30_000);
    spawnBox(SMSBOX as string, conf);
    // smsbox opens its sendsms port before it reads its sendsms users (a request then is refused
    // "Authorization failed"), and connects to bearerbox after: ready once it says so.
    await eventually(async () => output.join('').includes('Connected to bearerbox'), 30_000);
  });

  after(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(
      procs.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : undefined)),
    );
    await server?.close();
    hooks?.close();
    await svc?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** GET sendsms until smsbox answers (it starts after bearerbox), then its answer. */
  const sendsms = async (params: Record<string, string>) => {
    const url = new URL(`http://127.0.0.1:${sendsmsPort}/cgi-bin/sendsms`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return eventually(async () => {
      try {
        const res = await fetch(url);
        return { status: res.status, text: await res.text() };
      } catch {
        return undefined;
      }
    }, 30_000);
  };

  it('takes a sendsms message into Sparrow and reports its receipt to the dlr-url', async () => {
    const dlrUrl = `http://127.0.0.1:${hooksPort}/dlr?type=%d&id=%F&to=%p`;
    const answer = await sendsms({
      username: 'tester',
      password: 'testpass',
      from: ourNumber,
      to: '+12015550123',
      text: 'Hello from Kannel',
      'dlr-mask': '3',
      'dlr-url': dlrUrl,
    });
    assert.equal(answer.status, 202, `${answer.text}\n${output.join('')}`);

    const row = await eventually(async () => {
      const list = await call(svc.api, 'GET', `/v1/accounts/${acct.accountId}/messages`, { auth: acct.auth });
      return body(list).data.find((m: { message?: string }) => m.message === 'Hello from Kannel');
    }, 30_000);
    assert.equal(row.to ?? row.contact?.mobile?.number, '+12015550123');
    assert.equal(row.phoneNumber ?? row.from, ourNumber);

    const dlr = await eventually(
      async () => hits.find((u) => u.pathname === '/dlr' && u.searchParams.get('type') === '1'),
      30_000,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}; hooks: ${hits.map(String).join(', ')}\n${output.join('').slice(-4000)}`,
      );
    });
    // %F is the SMSC's message id: the one Sparrow answered in submit_sm_resp.
    assert.equal(dlr.searchParams.get('id'), row.id);
  });

  it("passes a text to the account's number on to Kannel's sms-service", async () => {
    await receiveMessage(svc.ctx, {
      provider: 'simulator',
      providerMessageId: `sim-${newId()}`,
      from: '+12015550177',
      to: ourNumber,
      text: 'Hello Kannel, from a phone',
      media: [],
      at: new Date(),
    });
    const mo = await eventually(async () => hits.find((u) => u.pathname === '/mo'), 30_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}\n${output.join('').slice(-4000)}`);
      },
    );
    assert.equal(mo.searchParams.get('text'), 'Hello Kannel, from a phone');
    assert.match(mo.searchParams.get('from') ?? '', /12015550177$/);
  });
});
