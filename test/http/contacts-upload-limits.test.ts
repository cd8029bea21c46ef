import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { UPLOAD_ANSWERED_ERRORS, UPLOAD_CHUNK } from '../../src/domain/contacts/upload-contacts.ts';
import {
  CSV_BODY_LIMIT,
  MAX_ATTRIBUTE_VALUE_LENGTH,
  MAX_CSV_COLUMNS,
  MAX_CSV_RECORD_CHARS,
} from '../../src/schemas/limits.ts';
import { spoolUpload } from '../../src/storage/spooled-upload.ts';
import { body, call, startTestService, type TestAccount, type TestService } from '../helpers.ts';

describe('limits of CSV uploads (POST /v1/accounts/:accountId/contacts, text/csv)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ rateLimitPerMinute: 1_000_000, redisUrl: undefined });
  });
  after(() => svc.close());

  const upload = (a: TestAccount, csv: string, query = '', headers: Record<string, string> = {}) =>
    call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts${query}`, {
      headers: { ...a.auth, 'content-type': 'text/csv', ...headers },
      payload: csv,
    });
  const count = async (a: TestAccount) =>
    (await svc.db.query('SELECT count(*)::int AS n FROM contacts WHERE account_id = $1', [a.accountId]))
      .rows[0].n as number;
  const mobile = (i: number) => `+1201${String(3_100_000 + i).padStart(7, '0')}`;
  const rows = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => `${mobile(from + i)},x`).join('\n');

  function refused(res: Awaited<ReturnType<typeof call>>, status: number, code: string, pattern: RegExp) {
    assert.equal(res.statusCode, status, res.body.slice(0, 300));
    assert.equal(body(res).success, false);
    assert.equal(body(res).error.code, code);
    assert.match(body(res).error.message, pattern);
  }

  it('refuses 2,000 columns × 1,500 rows with 400 naming the limit, writing nothing', async () => {
    const a = await svc.newAccount();
    const header = ['mobile', ...Array.from({ length: 1999 }, (_, i) => `c${i}`)].join(',');
    const lines = [header];
    for (let r = 0; r < 1500; r++) lines.push([mobile(r), ...Array(1999).fill('x')].join(','));
    refused(await upload(a, lines.join('\n')), 400, 'CONT-004', /more than 128 columns \(line 1\)/);
    assert.equal(await count(a), 0);
  });

  it('refuses a data row of a million empty cells with 400', async () => {
    const a = await svc.newAccount();
    refused(
      await upload(a, `mobile,plan\n${mobile(0)},gold\n${','.repeat(1_000_000)}\n`),
      400,
      'CONT-004',
      /more than 128 columns \(line 3\)/,
    );
  });

  it('accepts 128 columns, commas inside quotes counting for nothing', async () => {
    const a = await svc.newAccount();
    const header = ['mobile', ...Array.from({ length: MAX_CSV_COLUMNS - 1 }, (_, i) => `c${i}`)].join(',');
    const cells = Array.from({ length: 90 }, () => '"a,b,c"');
    const res = await upload(a, `${header}\n${mobile(0)},${cells.join(',')}\n`);
    assert.equal(res.statusCode, 201, res.body.slice(0, 300));
    assert.equal(body(res).data.contacts[0].attributes.c0, 'a,b,c');
    assert.equal(Object.keys(body(res).data.contacts[0].attributes).length, 90);
  });

  it('refuses a row over the attribute limits with 400 naming the row and column, writing no row', async () => {
    const a = await svc.newAccount();
    const header = ['mobile', ...Array.from({ length: 110 }, (_, i) => `c${i}`)].join(',');
    const full = Array(110).fill('v').join(',');
    const few = `v${','.repeat(109)}`;
    const csv = [header, `${mobile(0)},${few}`, `${mobile(1)},${few}`, `${mobile(2)},${full}`].join('\n');
    refused(await upload(a, csv), 400, 'CONT-005', /^Row 3: .*at most 100 attributes/);
    refused(
      await upload(
        a,
        `mobile,note\n${mobile(0)},ok\n${mobile(1)},${'x'.repeat(MAX_ATTRIBUTE_VALUE_LENGTH + 1)}\n`,
      ),
      400,
      'CONT-005',
      /^Row 2: The value of attribute "note" is longer than 5000/,
    );
    refused(
      await upload(a, `mobile,${'k'.repeat(129)}\n${mobile(0)},v\n`),
      400,
      'CONT-005',
      /^Row 1: The attribute name .* longer than 128/,
    );
    assert.equal(await count(a), 0);
  });

  it('reports an email of 60,000 characters or a name over 200 as a failed row', async () => {
    const a = await svc.newAccount();
    const email = `a@${'.'.repeat(60_000)}@`; // quadratic for the email pattern: refused by length first
    const res = await upload(
      a,
      `mobile,email,firstName\n${mobile(0)},${email},A\n${mobile(1)},,${'n'.repeat(201)}\n`,
    );
    assert.equal(res.statusCode, 201, res.body.slice(0, 300));
    const d = body(res).data;
    assert.deepEqual(
      d.errors.map((e: { row: number; error: { code: string; description: string } }) => [
        e.row,
        e.error.code,
      ]),
      [
        [1, 'VAL-001'],
        [2, 'VAL-001'],
      ],
    );
    assert.match(d.errors[0].error.description, /at most 320 characters/);
  });

  it('refuses a row longer than 64 Ki characters with 400', async () => {
    const a = await svc.newAccount();
    refused(
      await upload(a, `mobile,note\n${mobile(0)},"${'x'.repeat(MAX_CSV_RECORD_CHARS + 10)}"\n`),
      400,
      'CONT-004',
      /longer than 65536 characters/,
    );
  });

  it('refuses a merge that would grow a contact past the attribute limits, writing nothing', async () => {
    const a = await svc.newAccount();
    const attributes = Object.fromEntries(Array.from({ length: 95 }, (_, i) => [`a${i}`, 'v']));
    const created = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/contacts`, {
      auth: a.auth,
      json: { mobile: mobile(0), attributes },
    });
    assert.equal(created.statusCode, 201);
    const header = ['mobile', ...Array.from({ length: 10 }, (_, i) => `n${i}`)].join(',');
    const csv = `${header}\n${mobile(1)},${Array(10).fill('w').join(',')}\n${mobile(0)},${Array(10).fill('w').join(',')}\n`;
    refused(await upload(a, csv, '?mergeStrategy=append'), 400, 'CONT-005', /^Row 2: .*105 attributes/);
    assert.equal(await count(a), 1);
  });

  it('refuses more than 16 MiB with 413 and a NUL byte with 400', async () => {
    const a = await svc.newAccount();
    const big = `mobile\n${'1'.repeat(CSV_BODY_LIMIT)}\n`;
    refused(await upload(a, big), 413, 'VAL-003', /larger than 16 MiB/);
    refused(await upload(a, `mobile\n${mobile(0)}\u0000\n`), 400, 'VAL-001', /NUL/);
    assert.equal(await count(a), 0);
  });

  it('spools a streamed body of unknown length, refusing it past the limit and leaving no file', async () => {
    const ok = await spoolUpload(
      Readable.from([Buffer.from('mobile\n'), Buffer.from('+12013100000\n')]),
      100,
    );
    assert.equal(ok.bytes, 20);
    await ok.remove();
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(10, 0x31));
    await assert.rejects(spoolUpload(Readable.from(chunks), 100), /larger than/);
  });

  it('answers text/csv on an operation that takes no upload with 415', async () => {
    const a = await svc.newAccount();
    const res = await call(svc.api, 'POST', `/v1/accounts/${a.accountId}/templates`, {
      headers: { ...a.auth, 'content-type': 'text/csv' },
      payload: 'name,template\na,b\n',
    });
    refused(res, 415, 'VAL-004', /text\/csv is not supported here: send application\/json/);
  });

  it('lists the first 1,000 failed rows and counts them all', async () => {
    const a = await svc.newAccount();
    const bad = Array.from({ length: 1500 }, (_, i) => `12345${i},x`).join('\n');
    const res = await upload(a, `mobile,note\n${mobile(0)},x\n${bad}\n`);
    assert.equal(res.statusCode, 201, res.body.slice(0, 300));
    const d = body(res).data;
    assert.deepEqual(
      [d.submitted, d.inserted, d.failed, d.errors.length],
      [1501, 1, 1500, UPLOAD_ANSWERED_ERRORS],
    );
    assert.equal(d.errors[0].row, 2);
    assert.equal(d.errors[999].row, 1001);
  });

  it('treats a mobile repeated in another batch as repeated in the file', async () => {
    const a = await svc.newAccount();
    const csv = `mobile,note\n${rows(UPLOAD_CHUNK)}\n${mobile(5)},again\n`;
    const plain = body(await upload(a, csv)).data;
    assert.deepEqual([plain.inserted, plain.failed], [UPLOAD_CHUNK, 1]);
    assert.equal(plain.errors[0].row, UPLOAD_CHUNK + 1);
    assert.match(plain.errors[0].error.description, /appears earlier in the upload/);
    const b = await svc.newAccount();
    const merged = body(await upload(b, csv, '?mergeStrategy=append')).data;
    assert.deepEqual([merged.inserted, merged.updated, merged.failed], [UPLOAD_CHUNK, 1, 0]);
    const { rows: r } = await svc.db.query(
      `SELECT attributes->>'note' AS note FROM contacts WHERE account_id = $1 AND mobile_number = $2`,
      [b.accountId, mobile(5)],
    );
    assert.equal(r[0].note, 'again');
  });

  it('replays an upload with the same Idempotency-Key and refuses another body under it with 422', async () => {
    const a = await svc.newAccount();
    const headers = { 'idempotency-key': 'upload-1' };
    const first = await upload(a, `mobile\n${mobile(0)}\n`, '', headers);
    assert.equal(first.statusCode, 201);
    const again = await upload(a, `mobile\n${mobile(0)}\n`, '', headers);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    refused(await upload(a, `mobile\n${mobile(1)}\n`, '', headers), 422, 'IDEM-002', /./);
  });
});
