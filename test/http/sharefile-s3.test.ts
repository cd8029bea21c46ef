import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { task } from '../../src/workers/index.ts';
import { body, startTestService, type TestAccount, type TestService } from '../helpers.ts';
import * as F from '../support/sample-files.ts';

const sharefilePurge = task('sharefile-purge');

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverCtor = new (opts: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;

const BUCKET = 'sparrow-files';
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

describe('hosted files in an S3-compatible bucket (s3rver on loopback)', () => {
  let s3: S3rverInstance;
  let s3dir: string;
  let dataDir: string;
  let endpoint: string;
  let client: S3Client;
  let svc: TestService;
  let a: TestAccount;

  const objects = async () =>
    ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map(
      (o) => o.Key as string,
    );

  before(async () => {
    s3dir = await mkdtemp(path.join(tmpdir(), 'sparrow-s3rver-'));
    dataDir = await mkdtemp(path.join(tmpdir(), 'sparrow-files-'));
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: s3dir,
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    const { port } = await s3.run();
    endpoint = `http://127.0.0.1:${port}`;
    client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: KEYS });
    svc = await startTestService({
      dataDir,
      s3: { bucket: BUCKET, region: 'us-east-1', endpoint, forcePathStyle: true, ...KEYS },
    });
    a = await svc.newAccount();
  });
  after(async () => {
    await svc.close();
    client.destroy();
    await s3.close();
    await rm(s3dir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stores the upload as an object under the account and serves it from the bucket', async () => {
    const res = await svc.api.inject({
      method: 'POST',
      url: '/v1/tools/sharefile',
      headers: { ...a.auth, 'content-type': 'image/png' },
      payload: F.PNG,
    });
    assert.equal(res.statusCode, 200, res.body);
    const { link } = body(res).data;
    const keys = await objects();
    assert.equal(keys.length, 1);
    assert.match(keys[0], new RegExp(`^${a.accountId}/[0-9a-f-]{36}$`));
    const stored = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: keys[0] }));
    assert.deepEqual(Buffer.from(await stored.Body!.transformToByteArray()), F.PNG);
    assert.equal(stored.ContentType, 'image/png');

    const got = await svc.externals.inject({ method: 'GET', url: new URL(link).pathname });
    assert.equal(got.statusCode, 200);
    assert.equal(got.headers['content-type'], 'image/png');
    assert.equal(got.headers['content-length'], String(F.PNG.length));
    assert.deepEqual(got.rawPayload, F.PNG);
    // Nothing is kept on the local disk.
    assert.deepEqual(await readdir(dataDir), []);
  });

  it('takes a multipart upload too, and the purge deletes expired objects and rows', async () => {
    const form = F.multipart([{ name: 'media', filename: 'card.vcf', type: 'text/vcard', data: F.VCARD }]);
    const res = await svc.api.inject({
      method: 'POST',
      url: '/v1/tools/sharefile',
      headers: { ...a.auth, 'content-type': form.contentType },
      payload: form.payload,
    });
    assert.equal(res.statusCode, 200, res.body);
    const { link } = body(res).data;
    assert.equal((await objects()).length, 2);
    await svc.db.query(
      `UPDATE shared_files SET expires_at = now() - interval '1 second' WHERE account_id = $1`,
      [a.accountId],
    );
    await sharefilePurge.run(svc.ctx, new AbortController().signal);
    assert.deepEqual(await objects(), []);
    assert.equal((await svc.db.query('SELECT 1 FROM shared_files')).rowCount, 0);
    assert.equal(
      (await svc.externals.inject({ method: 'GET', url: new URL(link).pathname })).statusCode,
      404,
    );
  });

  it('takes a file of several MiB under the default SHAREFILE_MAX_BYTES (above the 1 MiB JSON body limit)', async () => {
    assert.equal(svc.config.sharefile.maxBytes, 5 * 1024 * 1024);
    const big = Buffer.concat([F.MP4, Buffer.alloc(3 * 1024 * 1024, 7)]);
    const raw = await svc.api.inject({
      method: 'POST',
      url: '/v1/tools/sharefile',
      headers: { ...a.auth, 'content-type': 'video/mp4' },
      payload: big,
    });
    assert.equal(raw.statusCode, 200, raw.body);
    const form = F.multipart([{ name: 'media', filename: 'clip.mp4', type: 'video/mp4', data: big }]);
    const viaForm = await svc.api.inject({
      method: 'POST',
      url: '/v1/tools/sharefile',
      headers: { ...a.auth, 'content-type': form.contentType },
      payload: form.payload,
    });
    assert.equal(viaForm.statusCode, 200, viaForm.body);
    const got = await svc.externals.inject({ method: 'GET', url: new URL(body(viaForm).data.link).pathname });
    assert.equal(got.headers['content-length'], String(big.length));
    assert.ok(got.rawPayload.equals(big));
  });

  it('answers 404 when the bucket no longer holds an unexpired file', async () => {
    const res = await svc.api.inject({
      method: 'POST',
      url: '/v1/tools/sharefile',
      headers: { ...a.auth, 'content-type': 'application/pdf' },
      payload: F.PDF,
    });
    const { link } = body(res).data;
    const { rows } = await svc.db.query<{ storage_key: string }>(
      `SELECT storage_key FROM shared_files WHERE content_type = 'application/pdf'`,
    );
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: rows[0].storage_key }));
    const got = await svc.externals.inject({ method: 'GET', url: new URL(link).pathname });
    assert.equal(got.statusCode, 404);
  });
});
