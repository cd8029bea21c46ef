import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { DEFAULT_BIND_LIMITS } from '../../src/smpp/auth.ts';
import { STATUS } from '../../src/smpp/status.ts';
import { eventually, within } from '../helpers.ts';
import { TestEsme } from '../support/esme.ts';
import { type SmppSuite, smppSuite } from '../support/smpp-suite.ts';

/**
 * The SMPP listener's connection caps and bind failure budgets (issue 28), with clients on several
 * loopback addresses (127.0.0.0/8 is all local on Linux: `localAddress` picks the client's).
 */

/** Opens `n` idle TCP connections from `from` (each resolved once connected or refused). */
async function idleSockets(port: number, from: string, n: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < n; i += 250) {
    const batch = Array.from(
      { length: Math.min(250, n - i) },
      () =>
        new Promise<void>((resolve) => {
          const s = net.connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve());
          s.on('error', () => resolve());
          s.on('close', () => resolve());
          sockets.push(s);
        }),
    );
    await Promise.all(batch);
  }
  return sockets;
}

/** Connects from `from` and binds; answers the bind_resp's command_status (within 5 s). */
async function bindFrom(smppd: SmppSuite, from: string, systemId: string, password: string): Promise<number> {
  const e = await within(TestEsme.connect(smppd.port, false, from), 5000, `connect from ${from}`);
  smppd.esmes.push(e);
  const resp = await within(e.bind('transceiver', systemId, password), 5000, `bind from ${from}`);
  return resp.command_status;
}

describe('SMPP listener: idle connections from one address', () => {
  // Held for the whole test: the bind timeout is not what lets the bind in.
  const smppd = smppSuite({ bindTimeoutMs: 60_000 });
  const held: net.Socket[] = [];
  after(() => {
    for (const s of held) s.destroy();
  });

  it('3,000 idle sockets from 127.0.0.2 leave a bind from 127.0.0.3 answered ESME_ROK', async () => {
    const c = await smppd.issue(await smppd.svc.newAccount());
    held.push(...(await idleSockets(smppd.port, '127.0.0.2', 3000)));
    assert.equal(await bindFrom(smppd, '127.0.0.3', c.systemId, c.password), STATUS.ROK);
    // The client's connect completes before the server's accept: wait until all 3,001 are seen.
    const counts = await eventually(async () => {
      const n = smppd.server.gate.counts();
      return n.open + n.refusedAddress >= 3001 && n;
    });
    assert.deepEqual(
      counts,
      { open: 51, refusedAddress: 2950, refusedFull: 0, evicted: 0 },
      'the bind and 50 idle',
    );
  });
});

describe('SMPP listener: full of idle connections from many addresses', () => {
  const smppd = smppSuite({ maxConnections: 60, maxConnectionsPerAddress: 30, bindTimeoutMs: 60_000 });
  const held: net.Socket[] = [];
  after(() => {
    for (const s of held) s.destroy();
  });

  it('an idle connection gives way to a new one; a bound session never does', async () => {
    const c = await smppd.issue(await smppd.svc.newAccount());
    assert.equal(await bindFrom(smppd, '127.0.0.5', c.systemId, c.password), STATUS.ROK);
    const early = smppd.esmes[0];
    for (const from of ['127.0.0.2', '127.0.0.4', '127.0.0.6', '127.0.0.7'])
      held.push(...(await idleSockets(smppd.port, from, 30)));
    assert.equal(await bindFrom(smppd, '127.0.0.3', c.systemId, c.password), STATUS.ROK);
    // All 122 accepted (the client's connect completes before the server's accept): 62 gave way.
    const counts = await eventually(async () => {
      const n = smppd.server.gate.counts();
      return n.open + n.evicted + n.refusedAddress + n.refusedFull >= 122 && n;
    });
    assert.deepEqual(counts, { open: 60, evicted: 62, refusedAddress: 0, refusedFull: 0 });
    // The first bind is still there and answering.
    assert.equal((await within(early.request('enquire_link'), 5000, 'enquire_link')).command_status, 0);
  });
});

describe('SMPP listener: wrong binds', () => {
  // The default bind limits: 10 failures a minute per (system_id, address), 20 per address. The
  // clock stands still: every attempt is inside one minute however long the machine takes for them.
  const now = Date.now();
  const smppd = smppSuite({
    maxBindsPerCredential: 100,
    bindLimits: { ...DEFAULT_BIND_LIMITS, clock: () => now },
  });

  it('ten wrong binds from 127.0.0.2 do not keep the right bind from 127.0.0.3 out (they do from 127.0.0.2)', async () => {
    const c = await smppd.issue(await smppd.svc.newAccount());
    for (let i = 0; i < 10; i++)
      assert.equal(await bindFrom(smppd, '127.0.0.2', c.systemId, 'wrong!!!'), STATUS.RINVPASWD);
    assert.equal(await bindFrom(smppd, '127.0.0.3', c.systemId, c.password), STATUS.ROK);
    assert.equal(await bindFrom(smppd, '127.0.0.2', c.systemId, c.password), STATUS.RBINDFAIL);
  });

  it('guesses spread over many addresses lock out new addresses, not one the ESME has bound from', async () => {
    const c = await smppd.issue(await smppd.svc.newAccount());
    assert.equal(await bindFrom(smppd, '127.0.1.1', c.systemId, c.password), STATUS.ROK);
    const statuses: number[] = [];
    for (let a = 10; a < 21; a++)
      for (let i = 0; i < 10; i++)
        statuses.push(await bindFrom(smppd, `127.0.1.${a}`, c.systemId, 'guess!!!'));
    // 100 failures a minute from addresses the system_id has not bound from, then none hashed.
    assert.equal(statuses.filter((s) => s === STATUS.RINVPASWD).length, 100);
    assert.equal(statuses.filter((s) => s === STATUS.RBINDFAIL).length, 10);
    assert.equal(await bindFrom(smppd, '127.0.1.99', c.systemId, c.password), STATUS.RBINDFAIL);
    assert.equal(await bindFrom(smppd, '127.0.1.1', c.systemId, c.password), STATUS.ROK);
  });
});

describe('SMPP server settings', () => {
  it('closes an unbound connection after 5 s and asks a quiet bind after 60 s by default', () => {
    const s = loadConfig({}).smppServer;
    assert.equal(s.bindTimeoutMs, 5000);
    assert.equal(s.enquireLinkMs, 60_000);
    assert.equal(s.maxConnectionsPerAddress, 50);
    const set = loadConfig({ SMPP_SERVER_BIND_TIMEOUT_SECONDS: '3', SMPP_SERVER_PARTS_KB_TOTAL: '2048' });
    assert.equal(set.smppServer.bindTimeoutMs, 3000);
    assert.equal(set.smppServer.partsBudget.total, 2048 * 1024);
  });
});
