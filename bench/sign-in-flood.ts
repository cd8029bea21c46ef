/**
 * `npm run bench:signin`: what a flood of console sign-ins does to the real administrator's.
 *
 * Against a real listener (default configuration, its own process): the administrator signs in
 * from 127.0.0.1 alone (baseline), then (1 s into it) while FLOOD sign-ins with made-up e-mails are sent at once
 * from rotating addresses 127.0.0.2–127.0.0.254 (one address each, as many addresses as a botnet
 * would have), then while FLOOD wrong passwords for the administrator's own e-mail are sent the
 * same way (from the browser it signed in with before, carrying its device cookie, and from a device
 * never used); and once that flood has ended, from a clean address (127.0.1.1). Prints each
 * sign-in's status and time, the flood's answers by status and the server's CPU time per phase,
 * and ten wrong passwords and ten unknown e-mails one at a time (their time class).
 * Env: FLOOD (default 200), DATABASE_URL (else embedded PostgreSQL).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import readline from 'node:readline';
import { benchDatabase, fmt } from './support.ts';

const flood = Number(process.env.FLOOD ?? 200);

function signIn(url: string, email: string, password: string, localAddress: string, cookie?: string) {
  const payload = JSON.stringify({ email, password });
  const started = performance.now();
  return new Promise<{ status: number; ms: number; code?: string; device?: string }>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(cookie ? { cookie } : {}),
        },
      },
      (res) => {
        const device = (res.headers['set-cookie'] ?? [])
          .find((l) => l.startsWith('sparrow_device='))
          ?.split(';')[0];
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => {
          let code: string | undefined;
          try {
            code = JSON.parse(text).error?.code;
          } catch {}
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, code, device });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** CPU seconds (user + system) the server process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const address = (i: number) => `127.0.${Math.floor(i / 253)}.${(i % 253) + 2}`;
const ms = (n: number) => `${fmt(n, 0)} ms`;

const database = await benchDatabase();
const server = spawn(process.execPath, ['--import', 'tsx', 'bench/sign-in-flood-server.ts'], {
  env: { ...process.env, BENCH_DATABASE_URL: database.url, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const line = await new Promise<string>((resolve) =>
    readline.createInterface(server.stdout).once('line', resolve),
  );
  const { url, admin } = JSON.parse(line) as { url: string; admin: { email: string; password: string } };
  const pid = server.pid!;
  // The administrator's browser keeps the device cookie its first sign-in set (SignInGuard trusts it).
  let device: string | undefined;
  const adminSignIn = async (from: string, fromDevice = true) => {
    const r = await signIn(url, admin.email, admin.password, from, fromDevice ? device : undefined);
    if (fromDevice) device ??= r.device;
    return r;
  };

  const base = [];
  for (let i = 0; i < 3; i++) base.push(await adminSignIn('127.0.0.1'));
  console.log(`baseline: administrator ${base.map((r) => `${r.status} in ${ms(r.ms)}`).join(', ')}`);

  // The time class: a wrong password for the administrator and an unknown e-mail, one at a time
  // (each from its own address, so no lock is reached).
  const classes: Record<string, number[]> = { 'wrong password': [], 'unknown e-mail': [] };
  for (let i = 0; i < 10; i++) {
    classes['wrong password'].push((await signIn(url, admin.email, `wrong ${i}`, `127.0.9.${i + 1}`)).ms);
    classes['unknown e-mail'].push(
      (await signIn(url, `nobody${i}@bench.example`, `wrong ${i}`, `127.0.9.${i + 101}`)).ms,
    );
  }
  await adminSignIn('127.0.0.1');
  for (const [k, v] of Object.entries(classes))
    console.log(`${k}: ${v.map((n) => fmt(n, 0)).join(', ')} ms (median ${ms(v.sort((a, b) => a - b)[5])})`);

  for (const [name, email] of [
    ['made-up e-mails', (i: number) => `nobody${i}-${Date.now()}@bench.example`],
    ['wrong passwords for the administrator', () => admin.email],
  ] as const) {
    const cpu0 = cpuSeconds(pid);
    const started = performance.now();
    const attack = Array.from({ length: flood }, (_, i) =>
      signIn(url, email(i), 'a wrong password of some length', address(i)),
    );
    await new Promise((r) => setTimeout(r, 1000));
    const during = await adminSignIn('127.0.0.1');
    const newDevice = await adminSignIn('127.0.2.1', false);
    const results = await Promise.all(attack);
    const took = performance.now() - started;
    const cpu = cpuSeconds(pid) - cpu0;
    const byStatus = new Map<string, number>();
    for (const r of results)
      byStatus.set(`${r.status} ${r.code}`, (byStatus.get(`${r.status} ${r.code}`) ?? 0) + 1);
    const after = await adminSignIn('127.0.1.1');
    console.log(
      `${flood} sign-ins, ${name}, from ${flood} addresses: answered in ${ms(took)} (${[...byStatus]
        .map(([k, n]) => `${n}× ${k}`)
        .join(
          ', ',
        )}), server CPU ${fmt(cpu, 2)} s, median ${ms(results.map((r) => r.ms).sort((a, b) => a - b)[results.length >> 1])}; ` +
        `administrator meanwhile from 127.0.0.1 (their device): ${during.status} ${during.code ?? ''} in ${ms(during.ms)}, ` +
        `from a device never used: ${newDevice.status} ${newDevice.code ?? ''} in ${ms(newDevice.ms)}; after, from 127.0.1.1: ${after.status} ${after.code ?? ''} in ${ms(after.ms)}`,
    );
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await database.stop();
}
