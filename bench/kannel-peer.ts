/** Kannel as a peer of bench:peer's race: bearerbox and smsbox bound to the sink as `smsc = smpp`. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/db/embedded.ts';
import { BEARERBOX, KANNEL_MISSING, kannelConfig, SMSBOX } from '../test/support/kannel-config.ts';
import { type Peer, request, sleep, spawnLogged, stopChild } from './race-support.ts';

export interface Kannel extends Peer {
  sendsmsPort: number;
}

export async function startKannel(sinkPort: number, window: number): Promise<Kannel> {
  if (!BEARERBOX || !SMSBOX) throw new Error(KANNEL_MISSING || 'Kannel is not installed');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sparrow-peer-kannel-'));
  const [adminPort, smsboxPort, sendsmsPort] = [await freePort(), await freePort(), await freePort()];
  const conf = path.join(dir, 'kannel.conf');
  writeFileSync(
    conf,
    kannelConfig({
      adminPort,
      smsboxPort,
      sendsmsPort,
      logLevel: 2,
      storeLocation: path.join(dir, 'kannel.store'),
      smsc: { id: 'sink', port: sinkPort, username: 'kannel', password: 'kannel', maxPendingSubmits: window },
      sendsmsUser: { username: 'bench', password: 'benchpass' },
    }),
  );
  const bearer = spawnLogged(BEARERBOX, ['-v', '2', conf], process.env, dir);
  const binds = async () => {
    const res = await request(`http://127.0.0.1:${adminPort}/status.txt?password=adminpass`).catch(
      () => undefined,
    );
    return res?.text.includes('online') ?? false;
  };
  for (let i = 0; !(await binds()); i++) {
    if (bearer.child.exitCode !== null || i > 300)
      throw new Error(`bearerbox did not bind:\n${bearer.output()}`);
    await sleep(100);
  }
  const smsbox = spawnLogged(SMSBOX, ['-v', '2', conf], process.env, dir);
  for (let i = 0; ; i++) {
    const res = await request(`http://127.0.0.1:${sendsmsPort}/cgi-bin/sendsms`).catch(() => undefined);
    if (res) break;
    if (smsbox.child.exitCode !== null || i > 300)
      throw new Error(`smsbox did not start:\n${smsbox.output()}`);
    await sleep(100);
  }
  return {
    name: 'Kannel',
    sendsmsPort,
    pids: () => [bearer.child.pid ?? 0, smsbox.child.pid ?? 0],
    cpuParts: ['bearerbox', 'smsbox'],
    async stop() {
      await stopChild(smsbox.child);
      await stopChild(bearer.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
