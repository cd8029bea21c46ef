/**
 * An oversized body is answered 413 in the error envelope in a way Node's fetch (undici) sees
 * (issue 24): the listener reads a bounded amount of the body before it answers and closes, rather
 * than closing on a client still sending (which fetch reports as "fetch failed").
 */
import assert from 'node:assert/strict';
import { type AddressInfo, connect as netConnect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { JSON_BODY_LIMIT } from '../../src/http/plugins/content-types.ts';
import { REFUSED_BODY_DRAIN_BYTES } from '../../src/http/plugins/refused-body.ts';
import { startTestService, type TestAccount, type TestService } from '../helpers.ts';

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A JSON body of about `bytes` bytes. */
const jsonOf = (bytes: number) => JSON.stringify({ mobile: '+12025550100', pad: 'x'.repeat(bytes) });

async function post(url: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: (await res.json()) as { success: boolean; error: { code: string } } };
}

describe('oversized bodies over a real listener, with fetch', () => {
  let svc: TestService;
  let a: TestAccount;
  let api: string;
  let pub: string;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    api = await listen(svc.api);
    pub = await listen(svc.externals);
  });
  after(() => svc.close());

  for (const size of [JSON_BODY_LIMIT + 1024, 2 * JSON_BODY_LIMIT, 8 * JSON_BODY_LIMIT]) {
    it(`answers a ${Math.round(size / 1024)} KiB JSON body 413 VAL-003 on the API listener`, async () => {
      const res = await post(`${api}/v1/accounts/${a.accountId}/contacts`, jsonOf(size), {
        ...a.auth,
        'content-type': 'application/json',
      });
      assert.equal(res.status, 413);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'VAL-003');
    });
  }

  it('answers a 2 MiB JSON body 413 VAL-003 on the public listener', async () => {
    const res = await post(`${pub}/v1/providers/simulator/messages`, jsonOf(2 * JSON_BODY_LIMIT), {
      'content-type': 'application/json',
    });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'VAL-003');
  });

  it('answers a 2 MiB form body 413 VAL-003 on the token endpoint', async () => {
    const res = await post(
      `${api}/oauth2/token`,
      `grant_type=client_credentials&pad=${'x'.repeat(2 * JSON_BODY_LIMIT)}`,
      {
        'content-type': 'application/x-www-form-urlencoded',
      },
    );
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'VAL-003');
  });

  it('answers a CSV upload over 16 MiB 413 VAL-003', async () => {
    const csv = new Uint8Array(17 * 1024 * 1024).fill(0x61);
    const res = await post(`${api}/v1/accounts/${a.accountId}/contacts`, csv, {
      ...a.auth,
      'content-type': 'text/csv',
    });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'VAL-003');
  });

  it('still answers within a keep-alive connection after a small oversized body', async () => {
    const first = await post(`${api}/v1/accounts/${a.accountId}/contacts`, jsonOf(JSON_BODY_LIMIT + 10), {
      ...a.auth,
      'content-type': 'application/json',
    });
    assert.equal(first.status, 413);
    const health = await fetch(`${api}/healthz`, { signal: AbortSignal.timeout(30_000) });
    assert.equal(health.status, 200);
  });
});

/** Reads from the socket until `pattern` has come, or fails when it closes first or the guard runs out. */
function until(s: Socket, pattern: RegExp, seen: { text: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    if (pattern.test(seen.text)) return resolve();
    const guard = setTimeout(() => done(new Error(`nothing matching ${pattern} within 15 s`)), 15_000);
    const onData = (d: Buffer) => {
      seen.text += d.toString('latin1');
      if (pattern.test(seen.text)) done();
    };
    const onClose = () =>
      done(new Error(`the server closed the connection before ${pattern}: ${seen.text.slice(0, 200)}`));
    function done(err?: Error) {
      clearTimeout(guard);
      s.removeListener('data', onData);
      s.removeListener('close', onClose);
      if (err) reject(err);
      else resolve();
    }
    s.on('data', onData);
    s.on('close', onClose);
  });
}

const write = (s: Socket, data: string | Buffer) =>
  new Promise<void>((resolve, reject) => s.write(data, (err) => (err ? reject(err) : resolve())));

describe('a refused body is read on, so the connection carries the answer and stays usable', () => {
  let svc: TestService;
  let a: TestAccount;
  let port: number;
  before(async () => {
    svc = await startTestService();
    a = await svc.newAccount();
    await svc.api.listen({ port: 0, host: '127.0.0.1' });
    port = (svc.api.server.address() as AddressInfo).port;
  });
  after(() => svc.close());

  const open = () =>
    new Promise<Socket>((resolve, reject) => {
      const s = netConnect({ port, host: '127.0.0.1' }, () => resolve(s));
      s.once('error', reject);
    });

  it('answers 413 before the body is sent, reads the rest, then answers the next request on the same connection', async () => {
    const s = await open();
    const seen = { text: '' };
    try {
      const size = 2 * JSON_BODY_LIMIT;
      await write(
        s,
        `POST /v1/accounts/${a.accountId}/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: ${a.auth.authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      await until(s, /^HTTP\/1\.1 413 [\s\S]*"VAL-003"/, seen);
      // The client goes on sending its body, as a client that does not wait for 100-continue does.
      await write(s, Buffer.alloc(size, 0x20));
      await write(s, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(s, /HTTP\/1\.1 200 /, seen);
    } finally {
      s.destroy();
    }
  });

  it('answers a body declared larger than the drain budget and closes the connection', async () => {
    const s = await open();
    const seen = { text: '' };
    try {
      await write(
        s,
        `POST /v1/accounts/${a.accountId}/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: ${a.auth.authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${REFUSED_BODY_DRAIN_BYTES + 1}\r\n\r\n`,
      );
      await until(s, /^HTTP\/1\.1 413 [\s\S]*"VAL-003"/, seen);
      assert.match(seen.text, /connection: close/i);
      await new Promise<void>((resolve, reject) => {
        const guard = setTimeout(() => reject(new Error('the connection stayed open')), 15_000);
        s.resume();
        s.once('close', () => {
          clearTimeout(guard);
          resolve();
        });
      });
    } finally {
      s.destroy();
    }
  });
});
