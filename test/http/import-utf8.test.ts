import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';

// The spool of this file's service: a folder of its own, so what the uploads leave is countable
// (os.tmpdir() reads TMPDIR at each call).
const spool = mkdtempSync(path.join(tmpdir(), 'sparrow-spool-test-'));
process.env.TMPDIR = spool;
const leftovers = () => readdirSync(spool).filter((f) => f.startsWith('sparrow-upload-'));

let seq = 0;
const mobile = () => `+1203${String(7_000_000 + seq++).padStart(7, '0')}`;

function multipart(content: Buffer) {
  const boundary = `----sparrow${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/**
 * A CSV upload must be UTF-8: bytes that are not are a 400 naming the line, with nothing imported
 * (before: stored as U+FFFD). And no upload leaves its spool file (contact data) behind, whatever
 * ends it: a refusal (NUL, too large, not UTF-8), the client gone, or success.
 */
describe('CSV uploads: UTF-8 checked, spool files removed', () => {
  let svc: TestService;
  let a: TestAccount;
  let port: number;
  const contacts = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/contacts`;
  const imports = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/contacts/imports`;
  const csv = (url: string, payload: Buffer | string, acc = a) =>
    svc.api.inject({
      method: 'POST',
      url,
      headers: { ...acc.auth, 'content-type': 'text/csv' },
      payload,
    });
  const form = (url: string, content: Buffer, acc = a) => {
    const f = multipart(content);
    return svc.api.inject({
      method: 'POST',
      url,
      headers: { ...acc.auth, ...f.headers },
      payload: f.payload,
    });
  };
  const count = async (acc: TestAccount) => {
    const c = body(await call(svc.api, 'GET', contacts(acc), { auth: acc.auth })).pagination.totalCount;
    const i = body(await call(svc.api, 'GET', imports(acc), { auth: acc.auth })).pagination.totalCount;
    return { contacts: c, imports: i };
  };
  const noSpool = async (what: string) => {
    // Removal after an answer runs in the response's hooks: it may trail the answer a little.
    await eventually(async () => leftovers().length === 0, 5_000).catch(() => {
      assert.fail(`${what}: spool files left: ${leftovers().join(', ')}`);
    });
  };

  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000 });
    a = await svc.newAccount();
    await svc.api.listen({ port: 0, host: '127.0.0.1' });
    port = (svc.api.server.address() as AddressInfo).port;
  });
  after(async () => {
    await svc.close();
    rmSync(spool, { recursive: true, force: true });
  });

  it('refuses a CSV with an invalid byte on line 3 with 400 naming line 3, nothing imported, no spool file', async () => {
    const bad = Buffer.concat([
      Buffer.from(`mobile,firstName\n${mobile()},Ann\n${mobile()},B`),
      Buffer.from([0xe9]), // Latin-1 é: not UTF-8
      Buffer.from(`b\n${mobile()},Cid\n`),
    ]);
    const b = await svc.newAccount();
    for (const [what, res] of [
      ['upload', await csv(contacts(b), bad, b)],
      ['import', await csv(imports(b), bad, b)],
      ['import form', await form(imports(b), bad, b)],
    ] as const) {
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      assert.equal(body(res).error.code, 'CONT-004', what);
      assert.match(body(res).error.description, /not valid UTF-8: line 3\b/, what);
      await noSpool(what);
    }
    assert.deepEqual(await count(b), { contacts: 0, imports: 0 });
    // Other malformed sequences, each on its line: a stray continuation byte, an overlong form,
    // a surrogate, a character cut off by the end of the file.
    for (const [bytes, line] of [
      [[0x80], 2],
      [[0xc0, 0xaf], 2],
      [[0xed, 0xa0, 0x80], 2],
      [[0xe2, 0x82], 2],
    ] as const) {
      const res = await csv(
        contacts(b),
        Buffer.concat([Buffer.from(`mobile,x\n${mobile()},`), Buffer.from(bytes)]),
        b,
      );
      assert.equal(res.statusCode, 400, res.body);
      assert.match(body(res).error.description, new RegExp(`line ${line}\\b`), res.body);
    }
    assert.deepEqual(await count(b), { contacts: 0, imports: 0 });
  });

  it('takes UTF-8 with a BOM and characters of every length, stored as sent', async () => {
    const names = ['Zoë', 'Ελένη', '李', '😀x'];
    const text = `\uFEFFmobile,firstName\n${names.map((n) => `${mobile()},${n}`).join('\n')}\n`;
    const res = await csv(contacts(a), Buffer.from(text));
    assert.equal(res.statusCode, 201, res.body);
    const { rows } = await svc.db.query<{ first_name: string }>(
      'SELECT first_name FROM contacts WHERE account_id = $1 ORDER BY first_name',
      [a.accountId],
    );
    assert.deepEqual(rows.map((r) => r.first_name).sort(), [...names].sort());
    await noSpool('success');
  });

  it('checks characters split between two chunks of the body, as sent over a socket', async () => {
    const text = Buffer.from(`mobile,firstName\n${mobile()},Zoë😀\n`);
    const split = text.indexOf(Buffer.from('😀')) + 2; // inside the 4-byte character
    const res = await rawPost(contacts(a), [text.subarray(0, split), text.subarray(split)]);
    assert.equal(res.status, 201, res.text);
    await noSpool('split');
  });

  it('leaves no spool file after a NUL, a body over the limit, or a client that goes away', async () => {
    const nul = await csv(imports(a), Buffer.from(`mobile\n${mobile()}\u0000\n`));
    assert.equal(nul.statusCode, 400, nul.body);
    assert.match(body(nul).error.description, /NUL/);
    await noSpool('NUL');
    const nulForm = await form(imports(a), Buffer.from(`mobile\n${mobile()}\u0000\n`));
    assert.equal(nulForm.statusCode, 400, nulForm.body);
    await noSpool('NUL in a form');
    // Over 16 MiB without a Content-Length (chunked): refused as it streams.
    const chunk = Buffer.from(`${'x'.repeat(1023)}\n`.repeat(1024));
    const big = await rawPost(imports(a), Array(17).fill(chunk));
    assert.equal(big.status, 413, big.text);
    await noSpool('too large');
    // The client sends half its body and goes away.
    await abortedPost(imports(a), Buffer.from(`mobile\n${mobile()}\n`.repeat(50_000)));
    await noSpool('client gone');
    assert.equal((await count(a)).imports, 0);
  });

  /** POSTs the chunks as separate writes (a pause between), chunked; answers the status and body. */
  function rawPost(url: string, chunks: Buffer[]): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: url,
          headers: { ...a.auth, 'content-type': 'text/csv' },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.setTimeout(20_000, () => req.destroy(new Error('no answer in 20 s')));
      (async () => {
        for (const c of chunks) {
          if (req.destroyed) return;
          req.write(c);
          await new Promise((r) => setTimeout(r, 20));
        }
        req.end();
      })();
    });
  }

  /** Sends the headers and the first half of the body (Content-Length: all of it), then closes the socket. */
  async function abortedPost(url: string, payload: Buffer): Promise<void> {
    const req = http.request({
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: url,
      headers: { ...a.auth, 'content-type': 'text/csv', 'content-length': String(payload.length) },
    });
    req.on('error', () => {});
    req.write(payload.subarray(0, payload.length / 2));
    // Until the service has spooled some of it.
    await eventually(async () => leftovers().length > 0, 10_000);
    req.destroy();
  }
});
