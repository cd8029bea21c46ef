/**
 * `npm run bench:flood`: a stranger's idle and slow connections against the service as `npm start`
 * runs it (child process, `--max-old-space-size=256`, embedded PostgreSQL in a temporary DATA_DIR
 * unless DATABASE_URL is set, workers on). N connections from 127.0.0.2 to the API listener, each
 * sending the start of a request and never its end (opened by flooder processes of up to 8,000
 * sockets each: this process's own open-file limit), then, from 127.0.0.3, the time of `/healthz`
 * on the API and public listeners and of `POST /oauth2/token`, before and during the flood. Prints
 * how many of the flood's connections the service held, how many it had closed by the end of the
 * hold, its open files, peak RSS, whether it is alive, and the lines it logged with EMFILE (workers'
 * `connect EMFILE`, the listeners' refused accepts).
 *
 * Env: N (20000), FD_LIMIT (the service's `ulimit -n`; default this process's, what `npm start`
 * would get), HOLD_S (15: longer than the header timeout), SPARROW_DIR (another checkout to run,
 * e.g. a `git worktree` of an older commit, for "before" figures), DATABASE_URL.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startLimitedService } from '../test/support/limited-service.ts';

const PER_FLOODER = 8000;

if (process.argv[2] === '--flood')
  await flooder(Number(process.argv[3]), process.argv[4], Number(process.argv[5]));
else await main();

/** A flooder process: opens `n` slow requests from `from`, answers `count` with how many are still open. */
async function flooder(port: number, from: string, n: number) {
  const sockets: net.Socket[] = [];
  let open = 0;
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, () => {
        const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
        sockets.push(s);
        s.on('error', () => {});
        s.resume();
        return new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            s.destroy();
            resolve();
          }, 5000);
          s.once('connect', () => {
            open++;
            s.once('close', () => open--);
            s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
            clearTimeout(t);
            resolve();
          });
          s.once('close', () => {
            clearTimeout(t);
            resolve();
          });
        });
      }),
    );
  }
  // A header line now and then (slowloris): the request never ends.
  const drip = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write('X-Slow: 1\r\n');
  }, 2000);
  process.send?.({ opened: sockets.length });
  process.on('message', (m: string) => {
    if (m === 'count') process.send?.({ open });
    if (m === 'exit') {
      clearInterval(drip);
      for (const s of sockets) s.destroy();
      process.exit(0);
    }
  });
}

function ask(child: ChildProcess, what: string): Promise<Record<string, number>> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as Record<string, number>));
    child.send(what);
  });
}

/** One request from 127.0.0.3 without keep-alive: its time in ms, or its error. */
function timed(port: number, method: string, urlPath: string, body?: string): Promise<string> {
  const t = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        localAddress: '127.0.0.3',
        agent: false,
        timeout: 10_000,
        headers: body
          ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
          : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(`${res.statusCode} in ${(performance.now() - t).toFixed(0)} ms`));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(`${err.code ?? err.message} after ${(performance.now() - t).toFixed(0)} ms`),
    );
    req.end(body);
  });
}

async function main() {
  const n = Number(process.env.N ?? 20_000);
  const holdS = Number(process.env.HOLD_S ?? 15);
  const ownLimit = Number(
    /Max open files\s+(\d+)/.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 1024,
  );
  const fdLimit = Number(process.env.FD_LIMIT ?? ownLimit);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sparrow-bench-flood-'));
  fs.chmodSync(dataDir, 0o755);
  const svc = await startLimitedService({
    env: process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : { DATA_DIR: dataDir },
    fdLimit,
    root: process.env.SPARROW_DIR,
  });
  const token = JSON.stringify({
    grant_type: 'client_credentials',
    client_id: svc.clientId,
    client_secret: svc.clientSecret,
  });
  const probes = async (label: string, times: number) => {
    for (let i = 0; i < times; i++) {
      const api = await timed(svc.port, 'GET', '/healthz');
      const pub = await timed(svc.externalsPort, 'GET', '/healthz');
      const tok = await timed(svc.port, 'POST', '/oauth2/token', token);
      console.log(`${label}: API /healthz ${api}; public /healthz ${pub}; /oauth2/token ${tok}`);
    }
  };
  console.log(
    `service: ${process.env.SPARROW_DIR ?? 'this checkout'}, ulimit -n ${fdLimit}, ${svc.openFds()} files open at rest`,
  );
  await probes('before the flood', 2);

  const flooders: ChildProcess[] = [];
  const t = performance.now();
  for (let left = n; left > 0; left -= PER_FLOODER) {
    const child = fork(
      import.meta.filename,
      ['--flood', String(svc.port), '127.0.0.2', String(Math.min(left, PER_FLOODER))],
      {
        execArgv: ['--import', 'tsx'],
      },
    );
    flooders.push(child);
  }
  await Promise.all(flooders.map((c) => new Promise((r) => c.once('message', r))));
  console.log(
    `flood: ${n} slow requests from 127.0.0.2 opened in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const held = async () =>
    (await Promise.all(flooders.map((c) => ask(c, 'count')))).reduce((a, b) => a + b.open, 0);
  console.log(
    `held by the service after the connects: ${await held()} of ${n}; service files open: ${svc.openFds()}`,
  );
  const start = performance.now();
  await probes('during the flood', 3);
  const rest = holdS * 1000 - (performance.now() - start);
  if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  console.log(`held after ${holdS} s: ${await held()} of ${n}; service files open: ${svc.openFds()}`);
  await probes(`after ${holdS} s of flood`, 1);
  for (const c of flooders) c.send('exit');
  const lines = svc.output().split('\n');
  const emfile = lines.filter((l) => /EMFILE|ENFILE/.test(l));
  console.log(
    `service alive: ${svc.alive()}; peak RSS ${(svc.memory().peakKb / 1024).toFixed(0)} MB; lines with EMFILE: ${emfile.length}`,
  );
  for (const l of emfile.slice(0, 3)) console.log(`  ${l.slice(0, 200)}`);
  const refused = lines.filter((l) => /listener: refused|could not be accepted/.test(l));
  for (const l of refused.slice(0, 4)) console.log(`  ${l.slice(0, 300)}`);
  await svc.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
