import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONTACT_IMPORTS } from '../../src/domain/contacts/run-contact-imports.ts';
import { runChunks } from '../../src/domain/jobs/run-chunks.ts';
import { body, call, eventually, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import { listenToEvents } from '../support/listen.ts';
import { workerProcesses } from '../support/worker-processes.ts';

let seq = 0;
const nextMobile = () => `+1203${String(6_000_000 + seq++).padStart(7, '0')}`;
const base = (acc: TestAccount) => `/v1/accounts/${acc.accountId}/contacts/imports`;

/** A multipart form with one file part. */
function multipartBody(field: string, fileName: string, content: string | Buffer) {
  const boundary = `----sparrow${Math.random().toString(16).slice(2)}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\n` +
        'Content-Type: text/csv\r\n\r\n',
    ),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('POST/GET /v1/accounts/:accountId/contacts/imports', () => {
  let svc: TestService;
  let acc: TestAccount;
  const post = (a: TestAccount, csv: string | Buffer, query = '', auth = a.auth) =>
    svc.api.inject({
      method: 'POST',
      url: `${base(a)}${query}`,
      headers: { ...auth, 'content-type': 'text/csv' },
      payload: csv,
    });
  const get = async (a: TestAccount, id: string) =>
    body(await call(svc.api, 'GET', `${base(a)}/${id}`, { auth: a.auth })).data;
  /** One worker chunk of `size` rows. */
  const chunk = (size: number) => runChunks(svc.db, svc.ctx.log, CONTACT_IMPORTS, size, 1);
  const work = () => runChunks(svc.db, svc.ctx.log, CONTACT_IMPORTS, 1000, 1000);

  before(async () => {
    svc = await startTestService();
    acc = await svc.newAccount();
    // The tests count acc's contact-created events, written only where heard.
    await listenToEvents(svc.db, acc.accountId, ['contact-created']);
  });
  after(() => svc.close());

  it('answers 401 without a token, 403 without contacts:write or contacts:read', async () => {
    const csv = `mobile\n${nextMobile()}\n`;
    const anon = await svc.api.inject({
      method: 'POST',
      url: base(acc),
      headers: { 'content-type': 'text/csv' },
      payload: csv,
    });
    assert.equal(anon.statusCode, 401, anon.body);
    assert.equal(body(anon).success, false);
    const reader = await svc.newAccount({ scopes: ['contacts:read'] });
    const refused = await post(reader, csv);
    assert.equal(refused.statusCode, 403, refused.body);
    const writer = await svc.newAccount({ scopes: ['contacts:write'] });
    const list = await call(svc.api, 'GET', base(writer), { auth: writer.auth });
    assert.equal(list.statusCode, 403, list.body);
  });

  it('imports a few thousand rows chunk by chunk: progress visible, final counts right, bad rows with their lines', async () => {
    const n = 3000;
    const lines = ['firstName,mobile,plan'];
    const bad = new Map<number, number>(); // row → line
    for (let row = 1; row <= n; row++) {
      if (row % 500 === 0) {
        lines.push(`Bad${row},12,none`);
        bad.set(row, lines.length);
      } else lines.push(`P${row},${nextMobile()},gold`);
      if (row === 1000) lines.push(''); // a blank line: skipped, but lines after it count it
    }
    const res = await post(acc, `${lines.join('\n')}\n`);
    assert.equal(res.statusCode, 202, res.body);
    const imp = body(res).data;
    assert.equal(imp.status, 'queued');
    assert.deepEqual(imp.counts, { total: n, processed: 0, created: 0, updated: 0, failed: 0 });
    assert.deepEqual(imp.errors, []);

    const seen: number[] = [];
    for (;;) {
      if ((await chunk(700)) === 0) break;
      const now = await get(acc, imp.id);
      seen.push(now.counts.processed);
      if (now.status === 'completed') break;
      assert.equal(now.status, 'running');
      assert.equal(
        now.counts.processed,
        now.counts.created + now.counts.updated + now.counts.failed,
        'processed is what was created, updated and failed',
      );
    }
    assert.deepEqual(seen, [700, 1400, 2100, 2800, 3000], 'progress moves one chunk per commit');
    const done = await get(acc, imp.id);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.counts, {
      total: n,
      processed: n,
      created: n - bad.size,
      updated: 0,
      failed: bad.size,
    });
    assert.deepEqual(
      done.errors.map((e: { row: number; line: number; mobile: string; error: { code: string } }) => [
        e.row,
        e.line,
        e.mobile,
        e.error.code,
      ]),
      [...bad].map(([row, line]) => [row, line, '12', 'CONT-001']),
    );
    assert.ok(done.startedAt && done.finishedAt);
    const { rows } = await svc.db.query<{ n: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM contacts WHERE account_id = $1) AS n,
              (SELECT count(*)::int FROM events WHERE account_id = $1 AND type = 'contact-created') AS events`,
      [acc.accountId],
    );
    assert.equal(rows[0].n, n - bad.size);
    assert.equal(rows[0].events, n - bad.size, 'one contact-created event per contact');
    const { rows: staged } = await svc.db.query('SELECT 1 FROM contact_import_rows WHERE account_id = $1', [
      acc.accountId,
    ]);
    assert.equal(staged.length, 0, 'the staged rows are gone once imported');
  });

  it('takes a multipart form, keeps the file name, and merges known mobiles with mergeStrategy', async () => {
    const a = await svc.newAccount();
    const known = nextMobile();
    const first = await post(a, `mobile,firstName\n${known},Ada\n`);
    assert.equal(first.statusCode, 202, first.body);
    await work();
    const form = multipartBody(
      'file',
      'people.csv',
      `mobile,firstName,lastName\n${known},Ada,Lovelace\n${nextMobile()},Grace,Hopper\n"${known}",Twice,"Quoted\nacross lines"\n`,
    );
    const res = await svc.api.inject({
      method: 'POST',
      url: `${base(a)}?mergeStrategy=append`,
      headers: { ...a.auth, ...form.headers },
      payload: form.payload,
    });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(body(res).data.fileName, 'people.csv');
    assert.equal(body(res).data.mergeStrategy, 'append');
    await work();
    const done = await get(a, body(res).data.id);
    assert.deepEqual(done.counts, { total: 3, processed: 3, created: 1, updated: 2, failed: 0 });

    // Without mergeStrategy a known mobile is a failed row, on the line its row starts.
    const again = await post(a, `mobile\n\n"${known}"\n`);
    await work();
    const dup = await get(a, body(again).data.id);
    assert.equal(dup.counts.failed, 1);
    assert.equal(dup.errors[0].line, 3);
    assert.equal(dup.errors[0].error.code, 'CONT-003');
  });

  it('reports a row whose attributes are over a limit and imports the others', async () => {
    const a = await svc.newAccount();
    const res = await post(a, `mobile,note\n${nextMobile()},${'x'.repeat(5001)}\n${nextMobile()},fine\n`);
    assert.equal(res.statusCode, 202, res.body);
    await work();
    const done = await get(a, body(res).data.id);
    assert.deepEqual(done.counts, { total: 2, processed: 2, created: 1, updated: 0, failed: 1 });
    assert.equal(done.errors[0].error.code, 'CONT-005');
    assert.equal(done.errors[0].line, 2);
  });

  it('fails an import whose chunk keeps failing, with the reason, and keeps the rows before it', async () => {
    const a = await svc.newAccount();
    // A database failure no row check foresees: contacts named Boom cannot be written.
    await svc.db.query(`CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.first_name = 'Boom' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`);
    await svc.db.query('CREATE TRIGGER boom BEFORE INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION boom()');
    try {
      const rows = [...Array.from({ length: 4 }, (_, i) => `P${i},${nextMobile()}`), `Boom,${nextMobile()}`];
      const res = await post(a, `firstName,mobile\n${rows.join('\n')}\n`);
      const id = body(res).data.id;
      assert.equal(await chunk(2), 1);
      for (let attempt = 1; attempt <= 6; attempt++) {
        await chunk(3);
        // The backoff is not waited out here: the import is made due again at once.
        await svc.db.query('UPDATE contact_imports SET retry_at = NULL WHERE id = $1', [id]);
      }
      const done = await get(a, id);
      assert.equal(done.status, 'failed');
      assert.equal(done.error.code, 'CONT-007');
      assert.match(done.error.description, /after 5 failed attempts at rows after 2/);
      assert.deepEqual(done.counts, { total: 5, processed: 2, created: 2, updated: 0, failed: 0 });
      assert.ok(done.finishedAt);
      assert.equal(await chunk(3), 0, 'a failed import is no longer worked');
    } finally {
      await svc.db.query('DROP TRIGGER boom ON contacts; DROP FUNCTION boom()');
    }
  });

  it('refuses a hostile file with a clear 4xx and stages nothing', async () => {
    const a = await svc.newAccount();
    const cases: [string, string | Buffer, number, string, RegExp][] = [
      ['empty', '', 400, 'CONT-004', /empty/],
      ['header only', 'mobile,firstName\n', 400, 'CONT-004', /no data rows/],
      ['no mobile column', 'name,email\nAda,ada@example.com\n', 400, 'CONT-004', /`mobile` column/],
      [
        'a huge line',
        `mobile,note\n+12025550100,${'y'.repeat(70_000)}\n`,
        400,
        'CONT-004',
        /longer than .*line 2/,
      ],
      ['200 columns', `mobile${',c'.repeat(199)}\n`, 400, 'CONT-004', /more than 128 columns/],
      ['binary with NUL', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]), 400, 'VAL-001', /NUL/],
      [
        'binary without NUL',
        Buffer.from([0xff, 0xfe, 0x22, 0x89, 0x0a, 0x81, 0x22, 0x22, 0x0a]),
        400,
        'CONT-004',
        /./,
      ],
      ['unclosed quote', 'mobile\n"+12025550100\n', 400, 'CONT-004', /invalid/],
    ];
    for (const [what, csv, status, code, message] of cases) {
      const res = await post(a, csv);
      assert.equal(res.statusCode, status, `${what}: ${res.body}`);
      assert.equal(body(res).error.code, code, what);
      assert.match(body(res).error.description, message, what);
    }
    const form = multipartBody('media', 'x.csv', 'mobile\n+12025550100\n');
    const wrongField = await svc.api.inject({
      method: 'POST',
      url: base(a),
      headers: { ...a.auth, ...form.headers },
      payload: form.payload,
    });
    assert.equal(wrongField.statusCode, 400, wrongField.body);
    assert.equal(body(wrongField).error.code, 'CONT-004');
    for (const name of ['a\u0000b.csv', `${'n'.repeat(5000)}.csv`]) {
      const named = multipartBody('file', name, 'mobile\n+12025550100\n');
      const res = await svc.api.inject({
        method: 'POST',
        url: base(a),
        headers: { ...a.auth, ...named.headers },
        payload: named.payload,
      });
      assert.ok(res.statusCode === 202 || res.statusCode === 400, `${name.slice(0, 9)}: ${res.body}`);
      if (res.statusCode === 202) {
        assert.ok(body(res).data.fileName.length <= 255);
        assert.ok(!body(res).data.fileName.includes('\u0000'));
        await svc.db.query('DELETE FROM contact_imports WHERE id = $1', [body(res).data.id]);
      }
    }
    const json = await call(svc.api, 'POST', base(a), { auth: a.auth, json: { mobile: '+12025550100' } });
    assert.equal(json.statusCode, 415, json.body);
    const badMerge = await post(a, 'mobile\n+12025550100\n', '?mergeStrategy=set');
    assert.equal(badMerge.statusCode, 400, badMerge.body);
    const list = body(await call(svc.api, 'GET', base(a), { auth: a.auth }));
    assert.equal(list.pagination.totalCount, 0, 'nothing was staged');
  });

  it("answers 404 CONT-006 for another account's import, an unknown or a malformed id, and lists only the account's own", async () => {
    const a = await svc.newAccount();
    const b = await svc.newAccount();
    const mine = body(await post(a, `mobile\n${nextMobile()}\n`)).data;
    for (const path of [
      `${base(b)}/${mine.id}`,
      `${base(a)}/0190a0a0-0000-7000-8000-000000000000`,
      `${base(a)}/abc`,
    ]) {
      const res = await call(svc.api, 'GET', path, { auth: path.includes(b.accountId) ? b.auth : a.auth });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(body(res).error.code, 'CONT-006');
    }
    const other = await call(svc.api, 'GET', `${base(a)}/${mine.id}`, { auth: b.auth });
    assert.equal(other.statusCode, 403, 'another account in the path is refused');
    const listB = body(await call(svc.api, 'GET', base(b), { auth: b.auth }));
    assert.equal(listB.pagination.totalCount, 0);
    const listA = body(await call(svc.api, 'GET', `${base(a)}?status=queued`, { auth: a.auth }));
    assert.deepEqual(
      listA.data.map((i: { id: string }) => i.id),
      [mine.id],
    );
    const badQuery = await call(svc.api, 'GET', `${base(a)}?limit=0`, { auth: a.auth });
    assert.equal(badQuery.statusCode, 400, badQuery.body);
  });
});

describe('a worker process killed in the middle of an import', () => {
  const N = 4000;
  let svc: TestService;
  let acc: TestAccount;
  const spawnWorker = workerProcesses();
  const worker = () =>
    spawnWorker({ DATABASE_URL: svc.config.databaseUrl as string, BULK_CHUNK_SIZE: '100' });
  before(async () => {
    svc = await startTestService();
    acc = await svc.newAccount();
    // The tests count acc's contact-created events, written only where heard.
    await listenToEvents(svc.db, acc.accountId, ['contact-created']);
  });
  after(() => svc.close());

  it('resumes where the last commit left it: every row imported once, one event each', async () => {
    const rows = Array.from({ length: N }, (_, i) => `P${i},${nextMobile()}`).join('\n');
    const res = await svc.api.inject({
      method: 'POST',
      url: `/v1/accounts/${acc.accountId}/contacts/imports`,
      headers: { ...acc.auth, 'content-type': 'text/csv' },
      payload: `firstName,mobile\n${rows}\n`,
    });
    assert.equal(res.statusCode, 202, res.body);
    const id = body(res).data.id;
    const progress = async () =>
      body(
        await call(svc.api, 'GET', `/v1/accounts/${acc.accountId}/contacts/imports/${id}`, {
          auth: acc.auth,
        }),
      ).data;

    const first = worker();
    await eventually(async () => (await progress()).counts.processed >= 300, 60_000, 20);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const atKill = await progress();
    assert.ok(atKill.counts.processed < N, 'the kill landed before the import finished');
    assert.equal(atKill.counts.processed % 100, 0, 'progress moves a whole chunk at a time');
    const count = async (sql: string) => (await svc.db.query<{ n: number }>(sql, [acc.accountId])).rows[0].n;
    assert.equal(
      await count('SELECT count(*)::int AS n FROM contacts WHERE account_id = $1'),
      atKill.counts.created,
      'what exists is exactly what the import counts as created',
    );

    const second = worker();
    const done = await eventually(
      async () => {
        const i = await progress();
        return i.status === 'completed' ? i : undefined;
      },
      90_000,
      100,
    );
    second.kill('SIGTERM');
    assert.deepEqual(done.counts, { total: N, processed: N, created: N, updated: 0, failed: 0 });
    assert.equal(await count('SELECT count(*)::int AS n FROM contacts WHERE account_id = $1'), N);
    assert.equal(
      await count(`SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND type = 'contact-created'`),
      N,
      'one contact-created event per row, none twice',
    );
  });
});
