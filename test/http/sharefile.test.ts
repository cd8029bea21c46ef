import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { task } from '../../src/workers/index.ts';
import { body, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import * as F from '../support/sample-files.ts';
import { serviceWithAccount } from '../support/suite.ts';

const sharefilePurge = task('sharefile-purge');

const URL_PATH = '/v1/tools/sharefile';
const MAX = 64 * 1024;

describe('POST /v1/tools/sharefile', () => {
  let svc: TestService;
  let a: TestAccount;
  let dataDir: string;

  const upload = (
    payload: Buffer | string,
    type: string | undefined,
    auth: Record<string, string> = a.auth,
  ) =>
    svc.api.inject({
      method: 'POST',
      url: URL_PATH,
      headers: { ...auth, ...(type === undefined ? {} : { 'content-type': type }) },
      payload,
    });
  const uploadForm = (parts: Parameters<typeof F.multipart>[0], auth = a.auth) => {
    const { payload, contentType } = F.multipart(parts);
    return svc.api.inject({
      method: 'POST',
      url: URL_PATH,
      headers: { ...auth, 'content-type': contentType },
      payload,
    });
  };
  const fetchLink = (link: string, method: 'GET' | 'HEAD' = 'GET', headers: Record<string, string> = {}) =>
    svc.externals.inject({ method, url: new URL(link).pathname, headers });
  const errorCode = (res: Parameters<typeof body>[0]) => body(res).error.code;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sparrow-files-'));
    svc = await startTestService({
      dataDir,
      externalsUrl: 'http://127.0.0.1:3001',
      sharefile: { maxBytes: MAX, ttlHours: 24, quotaBytes: 10 * MAX },
    });
    a = await svc.newAccount();
  });
  after(async () => {
    await svc.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('hosts a raw PNG and answers 200 with an absolute public link and its expiry', async () => {
    const before = Date.now();
    const res = await upload(F.PNG, 'image/png');
    assert.equal(res.statusCode, 200, res.body);
    const { success, data } = body(res);
    assert.equal(success, true);
    const link = new URL(data.link);
    assert.equal(link.origin, 'http://127.0.0.1:3001');
    assert.match(link.pathname, /^\/files\/[A-Za-z0-9_-]{43}\.png$/);
    const hours = (Date.parse(data.expires) - before) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24.01, `expires ${data.expires} is 24 h ahead`);
    assert.equal(data.contentType, 'image/png');
    assert.equal(data.size, F.PNG.length);

    const got = await fetchLink(data.link);
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.rawPayload, F.PNG);
    assert.equal(got.headers['content-type'], 'image/png');
    assert.equal(got.headers['content-length'], String(F.PNG.length));
    assert.equal(got.headers['x-content-type-options'], 'nosniff');
    const maxAge = Number(/max-age=(\d+)/.exec(String(got.headers['cache-control']))?.[1]);
    assert.ok(maxAge > 23 * 3600 && maxAge <= 24 * 3600, `cache-control ${got.headers['cache-control']}`);
    assert.equal(
      new Date(String(got.headers.expires)).getTime(),
      Math.floor(Date.parse(data.expires) / 1000) * 1000,
    );
    assert.match(String(got.headers['content-security-policy']), /sandbox/);
  });

  it('answers HEAD with the headers and no body, and 304 for a matching If-None-Match', async () => {
    const { data } = body(await upload(F.JPEG, 'image/jpeg'));
    const head = await fetchLink(data.link, 'HEAD');
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-type'], 'image/jpeg');
    assert.equal(head.headers['content-length'], String(F.JPEG.length));
    assert.equal(head.rawPayload.length, 0);
    const etag = String(head.headers.etag);
    const again = await fetchLink(data.link, 'GET', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
  });

  it('stores the file under DATA_DIR/files readable by its owner only, and no spool file remains', async () => {
    const { data } = body(await upload(F.GIF, 'image/gif'));
    assert.ok(data.link);
    const accountDir = path.join(dataDir, 'files', a.accountId);
    const names = await readdir(accountDir);
    assert.ok(names.length >= 1);
    for (const name of names) assert.equal((await stat(path.join(accountDir, name))).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(path.join(dataDir, 'files', '.incoming')), []);
  });

  it('accepts every listed type, by raw body and by multipart, serving each with its own type', async () => {
    const cases: [Buffer, string, string][] = [
      [F.WEBP, 'image/webp', 'image/webp'],
      [F.MP3, 'audio/mpeg', 'audio/mpeg'],
      [F.MP3_FRAME, 'audio/mp3', 'audio/mpeg'],
      [F.AAC, 'audio/aac', 'audio/aac'],
      [F.M4A, 'audio/mp4', 'audio/mp4'],
      [F.AMR, 'audio/amr', 'audio/amr'],
      [F.OGG, 'audio/ogg', 'audio/ogg'],
      [F.WAV, 'audio/x-wav', 'audio/wav'],
      [F.MP4, 'video/mp4', 'video/mp4'],
      [F.THREE_GP, 'video/3gpp', 'video/3gpp'],
      [F.MOV, 'video/quicktime', 'video/quicktime'],
      [F.PDF, 'application/pdf', 'application/pdf'],
      [F.VCARD, 'text/x-vcard', 'text/vcard; charset=utf-8'],
      [F.JPEG, 'IMAGE/JPEG; name="photo.jpg"', 'image/jpeg'],
      [F.MP4, 'application/octet-stream', 'video/mp4'],
    ];
    for (const [bytes, declared, served] of cases) {
      for (const how of ['raw', 'multipart'] as const) {
        const res =
          how === 'raw'
            ? await upload(bytes, declared)
            : await uploadForm([{ name: 'media', filename: 'x.bin', type: declared, data: bytes }]);
        assert.equal(res.statusCode, 200, `${declared} (${how}): ${res.body}`);
        const got = await fetchLink(body(res).data.link);
        assert.equal(got.statusCode, 200);
        assert.equal(got.headers['content-type'], served, `${declared} (${how})`);
        assert.deepEqual(got.rawPayload, bytes);
      }
    }
  });

  it('asks for a Content-Type (415 FILE-001), and takes application/octet-stream as the type the bytes show', async () => {
    const res = await upload(F.GIF, undefined);
    assert.equal(res.statusCode, 415, res.body);
    assert.equal(errorCode(res), 'FILE-001');
    // A multipart part without a type is text/plain (RFC 7578 §4.4): not an accepted type.
    const typeless = await uploadForm([{ name: 'media', filename: 'x', data: F.GIF }]);
    assert.equal(typeless.statusCode, 415, typeless.body);
    assert.equal(errorCode(typeless), 'FILE-001');
    const form = await uploadForm([
      { name: 'media', filename: 'x', type: 'application/octet-stream', data: F.GIF },
    ]);
    assert.equal(form.statusCode, 200, form.body);
    assert.equal(body(form).data.contentType, 'image/gif');
    const html = await uploadForm([
      { name: 'media', filename: 'x', type: 'application/octet-stream', data: F.HTML },
    ]);
    assert.equal(html.statusCode, 415, html.body);
    assert.equal(errorCode(html), 'FILE-002');
    const none = await svc.api.inject({ method: 'POST', url: URL_PATH, headers: a.auth });
    assert.equal(none.statusCode, 400, none.body);
    assert.equal(errorCode(none), 'FILE-005');
  });

  it('refuses a missing or wrong token (401) and a token without messages:send (403)', async () => {
    const none = await upload(F.PNG, 'image/png', {});
    assert.equal(none.statusCode, 401);
    assert.equal(errorCode(none), 'AUTH-001');
    const bad = await upload(F.PNG, 'image/png', { authorization: 'Bearer nope' });
    assert.equal(bad.statusCode, 401);
    const reader = await svc.newAccount({ scopes: ['messages:read'] });
    const res = await upload(F.PNG, 'image/png', reader.auth);
    assert.equal(res.statusCode, 403);
    assert.equal(errorCode(res), 'AUTH-004');
  });

  it('refuses types that are not on the list with 415 FILE-001, markup above all', async () => {
    for (const [bytes, type] of [
      [F.HTML, 'text/html'],
      [F.SVG, 'image/svg+xml'],
      [Buffer.from('alert(1)'), 'application/javascript'],
      [Buffer.from('<?xml version="1.0"?><x/>'), 'application/xml'],
      [Buffer.from('hello'), 'text/plain'],
      [Buffer.from('{"a":1}'), 'application/json'],
      [Buffer.from('a=1'), 'application/x-www-form-urlencoded'],
      [F.PNG, 'text/html; charset=image/png'],
    ] as const) {
      const res = await upload(bytes, type);
      assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
      assert.equal(errorCode(res), 'FILE-001', type);
    }
    // A Content-Type the HTTP layer cannot even parse is 415 before any route sees it.
    assert.equal((await upload(F.PNG, 'image/png\u0000')).statusCode, 415);
    const form = await uploadForm([{ name: 'media', filename: 'x.html', type: 'text/html', data: F.HTML }]);
    assert.equal(form.statusCode, 415);
    assert.equal(errorCode(form), 'FILE-001');
  });

  it('refuses contents that are not the declared type with 415 FILE-002 (HTML disguised as PNG, polyglots)', async () => {
    for (const [bytes, type] of [
      [F.HTML, 'image/png'],
      [F.SVG, 'image/jpeg'],
      [F.GIF_HTML_POLYGLOT, 'image/png'],
      [F.PNG, 'image/jpeg'],
      [F.HTML, 'text/vcard'],
      [Buffer.from('BEGIN:VCARD\r\nFN:x\r\n<script>'), 'text/vcard'],
      [Buffer.from('BEGIN:VCARD\r\nFN:\u0000\r\nEND:VCARD\r\n'), 'text/vcard'],
      [
        Buffer.concat([
          Buffer.from('BEGIN:VCARD\r\nFN:'),
          Buffer.from([0xc3, 0x28]),
          Buffer.from('\r\nEND:VCARD'),
        ]),
        'text/vcard',
      ],
      [F.HTML, 'application/octet-stream'],
      [F.PDF, 'video/mp4'],
    ] as const) {
      const res = await upload(bytes, type);
      assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
      assert.equal(errorCode(res), 'FILE-002', type);
    }
    const form = await uploadForm([{ name: 'media', filename: 'cat.png', type: 'image/png', data: F.HTML }]);
    assert.equal(form.statusCode, 415);
    assert.equal(errorCode(form), 'FILE-002');
  });

  it('serves a GIF-headed polyglot only as image/gif with nosniff and a sandbox', async () => {
    const res = await upload(F.GIF_HTML_POLYGLOT, 'image/gif');
    assert.equal(res.statusCode, 200, res.body);
    const got = await fetchLink(body(res).data.link);
    assert.equal(got.headers['content-type'], 'image/gif');
    assert.equal(got.headers['x-content-type-options'], 'nosniff');
    assert.match(String(got.headers['content-security-policy']), /default-src 'none'; sandbox/);
  });

  it('refuses an empty file with 400 FILE-004, raw or multipart', async () => {
    const raw = await upload(Buffer.alloc(0), 'image/png');
    assert.equal(raw.statusCode, 400, raw.body);
    assert.equal(errorCode(raw), 'FILE-004');
    const form = await uploadForm([{ name: 'media', filename: 'x.png', type: 'image/png', data: '' }]);
    assert.equal(form.statusCode, 400, form.body);
    assert.equal(errorCode(form), 'FILE-004');
  });

  it('refuses a file over SHAREFILE_MAX_BYTES with 413 FILE-003, raw or multipart, and keeps nothing', async () => {
    const big = Buffer.concat([F.PNG, Buffer.alloc(MAX)]);
    const raw = await upload(big, 'image/png');
    assert.equal(raw.statusCode, 413, raw.body);
    assert.equal(errorCode(raw), 'FILE-003');
    const form = await uploadForm([{ name: 'media', filename: 'x.png', type: 'image/png', data: big }]);
    assert.equal(form.statusCode, 413, form.body);
    assert.equal(errorCode(form), 'FILE-003');
    const exact = await upload(Buffer.concat([F.PNG, Buffer.alloc(MAX - F.PNG.length)]), 'image/png');
    assert.equal(exact.statusCode, 200, 'a file of exactly the limit is accepted');
    assert.deepEqual(await readdir(path.join(dataDir, 'files', '.incoming')), []);
  });

  it('answers 413 while an endless upload is still arriving, raw or multipart (the limit is enforced as it streams)', async () => {
    await svc.api.listen({ port: 0, host: '127.0.0.1' });
    const { port } = svc.api.server.address() as AddressInfo;
    const CAP = 256 * 1024 * 1024;
    /** Streams `head` then zeros (chunked, no Content-Length) until the answer comes or CAP bytes are sent. */
    const stream = (contentType: string, head: Buffer) =>
      new Promise<{ status: number; text: string; written: number }>((resolve, reject) => {
        const req = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: URL_PATH,
          headers: { ...a.auth, 'content-type': contentType },
        });
        let written = 0;
        let answered = false;
        req.on('response', (res) => {
          answered = true;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text, written }));
        });
        // The server closes the connection after its 413 (Connection: close) without reading the rest;
        // a write racing that close can fail (EPIPE, ECONNRESET) before the answer is parsed.
        req.on('error', (err: NodeJS.ErrnoException) => {
          if (answered) return;
          if (err.code === 'EPIPE' || err.code === 'ECONNRESET') resolve({ status: 0, text: '', written });
          else reject(err);
        });
        const zeros = Buffer.alloc(64 * 1024);
        const pump = () => {
          while (!answered && written < CAP) {
            const chunk = written === 0 ? head : zeros;
            written += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          if (!answered) req.end();
        };
        pump();
      });
    /** Answered 413 FILE-003 (or cut off) long before the body's end: the server never read it all. */
    const refusedEarly = (r: { status: number; text: string; written: number }) => {
      assert.ok(r.written < CAP, `the server waited for all ${r.written} bytes`);
      if (r.status === 0) return;
      assert.equal(r.status, 413, r.text);
      assert.equal(JSON.parse(r.text).error.code, 'FILE-003');
    };
    refusedEarly(await stream('image/png', F.PNG));
    const boundary = 'endless0boundary';
    const partHead = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="media"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      F.PNG,
    ]);
    refusedEarly(await stream(`multipart/form-data; boundary=${boundary}`, partHead));
  });

  it('refuses malformed multipart uploads with 400 FILE-005', async () => {
    const cases: [string, Parameters<typeof F.multipart>[0]][] = [
      ['no file at all', [{ name: 'note', data: 'hello' }]],
      [
        'the file in another field',
        [{ name: 'attachment', filename: 'x.png', type: 'image/png', data: F.PNG }],
      ],
      [
        'two files',
        [
          { name: 'media', filename: 'a.png', type: 'image/png', data: F.PNG },
          { name: 'media', filename: 'b.png', type: 'image/png', data: F.PNG },
        ],
      ],
    ];
    for (const [what, parts] of cases) {
      const res = await uploadForm(parts);
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      assert.equal(errorCode(res), 'FILE-005', what);
    }
    const noBoundary = await upload(F.PNG, 'multipart/form-data');
    assert.equal(noBoundary.statusCode, 400, noBoundary.body);
    assert.equal(errorCode(noBoundary), 'FILE-005');
    const truncated = F.multipart([{ name: 'media', filename: 'x.png', type: 'image/png', data: F.PNG }]);
    const cut = await svc.api.inject({
      method: 'POST',
      url: URL_PATH,
      headers: { ...a.auth, 'content-type': truncated.contentType },
      payload: truncated.payload.subarray(0, truncated.payload.length - 20),
    });
    assert.equal(cut.statusCode, 400, cut.body);
    assert.equal(errorCode(cut), 'FILE-005');
  });

  it('takes hostile file names and extra fields without echoing them anywhere', async () => {
    const res = await uploadForm([
      { name: 'note', data: '<script>x</script>' },
      { name: 'media', filename: '../../../etc/passwd<script>.html', type: 'image/png', data: F.PNG },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const { link } = body(res).data;
    assert.match(new URL(link).pathname, /^\/files\/[A-Za-z0-9_-]{43}\.png$/);
    assert.doesNotMatch(res.body, /passwd|script/);
  });

  it('answers the same 404 for an unknown token, a wrong extension and an expired file, and the purge removes it', async () => {
    const { data } = body(await upload(F.PNG, 'image/png'));
    const p = new URL(data.link).pathname;
    const unknownRoute = await svc.externals.inject({ method: 'GET', url: '/nothing-here' });
    for (const url of [
      `/files/${'A'.repeat(43)}.png`,
      p.replace(/\.png$/, '.html'),
      p.replace(/\.png$/, ''),
      `${p}/x`,
      '/files/..%2F..%2Fetc%2Fpasswd',
    ]) {
      const res = await svc.externals.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      const sameAsNoRoute = unknownRoute.body.replaceAll('/nothing-here', url);
      assert.equal(res.body, sameAsNoRoute, `${url}: the same answer as a path that does not exist`);
    }
    const [{ id, storage_key }] = (
      await svc.db.query(
        `UPDATE shared_files SET expires_at = now() - interval '1 second'
         WHERE account_id = $1 AND size_bytes = $2
           AND id = (SELECT id FROM shared_files WHERE account_id = $1 ORDER BY id DESC LIMIT 1)
         RETURNING id, storage_key`,
        [a.accountId, F.PNG.length],
      )
    ).rows;
    const expired = await fetchLink(data.link);
    assert.equal(expired.statusCode, 404);
    assert.equal(expired.body, unknownRoute.body.replaceAll('/nothing-here', p));
    const file = path.join(dataDir, 'files', ...storage_key.split('/'));
    await stat(file); // still there until the purge runs
    await sharefilePurge.run(svc.ctx, new AbortController().signal);
    await assert.rejects(stat(file), { code: 'ENOENT' });
    const left = await svc.db.query('SELECT 1 FROM shared_files WHERE id = $1', [id]);
    assert.equal(left.rowCount, 0);
    assert.equal((await fetchLink(data.link, 'HEAD')).statusCode, 404);
  });

  it('replays an upload with the same Idempotency-Key and refuses the key with other bytes (422)', async () => {
    const send = (bytes: Buffer) =>
      svc.api.inject({
        method: 'POST',
        url: URL_PATH,
        headers: { ...a.auth, 'content-type': 'image/png', 'idempotency-key': 'upload-1' },
        payload: bytes,
      });
    const first = await send(F.PNG);
    assert.equal(first.statusCode, 200, first.body);
    const again = await send(F.PNG);
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(body(again).data.link, body(first).data.link);
    const other = await send(Buffer.concat([F.PNG, Buffer.from('x')]));
    assert.equal(other.statusCode, 422, other.body);
  });

  it('purges with several workers at once: every expired file is removed exactly once', async () => {
    const links: string[] = [];
    for (let i = 0; i < 5; i++) links.push(body(await upload(F.PNG, 'image/png')).data.link);
    await svc.db.query(
      `UPDATE shared_files SET expires_at = now() - interval '1 second' WHERE account_id = $1`,
      [a.accountId],
    );
    const { purgeExpiredFiles } = await import('../../src/domain/files/purge-expired-files.ts');
    const rounds = await Promise.all([1, 2, 3].map(() => purgeExpiredFiles(svc.db, svc.config)));
    assert.deepEqual(
      rounds.flatMap((r) => r.failed),
      [],
    );
    const removed = rounds.reduce((n, r) => n + r.removed, 0);
    assert.ok(removed >= 5, `removed ${removed}`);
    assert.equal(
      (await svc.db.query('SELECT 1 FROM shared_files WHERE account_id = $1', [a.accountId])).rowCount,
      0,
    );
    assert.deepEqual(await readdir(path.join(dataDir, 'files', a.accountId)), []);
    for (const link of links) assert.equal((await fetchLink(link)).statusCode, 404);
  });
});

describe('hosted files: quota per account and the public rate limit', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sparrow-files-'));
  const s = serviceWithAccount({
    dataDir,
    redisUrl: undefined,
    sharefile: { maxBytes: MAX, ttlHours: 1, quotaBytes: F.PNG.length * 2 },
    publicRateLimits: { forms: 1e6, bookings: 1e6, links: 1e6, callbacks: 1e6, simulator: 1e6, files: 3 },
  });
  after(() => rm(dataDir, { recursive: true, force: true }));
  const send = (acct: TestAccount, payload = F.PNG) =>
    s.svc.api.inject({
      method: 'POST',
      url: URL_PATH,
      headers: { ...acct.auth, 'content-type': 'image/png' },
      payload,
    });

  it("refuses an upload past the account's quota with 413 FILE-006; other accounts and expired files do not count", async () => {
    const one = await s.svc.newAccount();
    const two = await s.svc.newAccount();
    assert.equal((await send(one)).statusCode, 200);
    assert.equal((await send(one)).statusCode, 200);
    const over = await send(one);
    assert.equal(over.statusCode, 413, over.body);
    assert.equal(body(over).error.code, 'FILE-006');
    // A full account is refused before its body is read: bytes that are not a PNG are FILE-006 too.
    const early = await send(one, F.HTML);
    assert.equal(body(early).error.code, 'FILE-006');
    assert.equal((await send(two)).statusCode, 200, "another account's quota is its own");
    await s.svc.db.query(
      `UPDATE shared_files SET expires_at = now() - interval '1 second' WHERE account_id = $1`,
      [one.accountId],
    );
    assert.equal((await send(one)).statusCode, 200, 'expired files no longer count');
  });

  it('limits /files/ per client address (PUBLIC_RATE_LIMIT_FILES): 429 RATE-001 past the budget', async () => {
    const { link } = body(await send(s.a)).data;
    const url = new URL(link).pathname;
    const get = () => s.svc.externals.inject({ method: 'GET', url, remoteAddress: '198.51.100.7' });
    for (let i = 0; i < 3; i++) assert.equal((await get()).statusCode, 200);
    const limited = await get();
    assert.equal(limited.statusCode, 429);
    assert.equal(body(limited).error.code, 'RATE-001');
    assert.ok(limited.headers['retry-after']);
    const elsewhere = await s.svc.externals.inject({ method: 'GET', url, remoteAddress: '198.51.100.8' });
    assert.equal(elsewhere.statusCode, 200, 'another address has its own budget');
  });
});
