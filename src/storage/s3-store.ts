import { createReadStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import type { S3Config } from '../config.ts';
import { checkKey, type FileStore } from './store.ts';

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2...); uploads are spooled in the OS
 * temp folder. The SDK is imported here, when a bucket is configured, not at start-up: the bundle
 * keeps a dynamic import of an external package dynamic.
 */
export async function s3FileStore(config: S3Config): Promise<FileStore> {
  const { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } = await import(
    '@aws-sdk/client-s3'
  );
  const client = new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    // Checksums only where the API requires them: the SDK's default (aws-chunked uploads with
    // trailing CRC32) is not spoken by every S3-compatible store.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials:
      config.accessKeyId && config.secretAccessKey
        ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey }
        : undefined,
  });
  const Bucket = config.bucket;
  return {
    kind: 's3',
    async spoolDir() {
      return tmpdir();
    },
    async put(key, spooled, meta) {
      try {
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key: checkKey(key),
            Body: createReadStream(spooled),
            ContentLength: meta.size,
            ContentType: meta.contentType,
          }),
        );
      } finally {
        await unlink(spooled).catch(() => undefined);
      }
    },
    async get(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: checkKey(key) }));
        return res.Body as Readable | undefined;
      } catch (err) {
        const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
        throw err;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: checkKey(key) }));
    },
  };
}
